import { describe, expect, it } from 'vitest';
import { runCli } from './__fixtures__/cli.js';

describe('adk --help', () => {
  it('lists every command', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['web', 'api_server', 'run', 'create'])
      expect(result.stdout).toMatch(new RegExp(`\\n\\s+${command}\\b`));
  });

  it.each([
    [
      'web',
      [
        '--port <port>',
        '--host <host>',
        '--token <token>',
        '--allow-origins',
        '--data-dir',
        'DATABASE_URL',
        '--no-reload',
        'GET /dev/reload',
      ],
    ],
    ['api_server', ['--port <port>', '--no-a2a', 'ADK_SERVER_TOKEN']],
    ['run', ['--session <id>', '--replay <file>', 'echo "What is 12 * 7?" | adk run']],
    ['create', ['<name>', '--model <model>', '--packages <source>', 'registry', 'checkout', 'auto']],
  ])('has help for %s', async (command, expected) => {
    const result = await runCli([command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Usage: adk ${command}`);
    for (const text of expected) expect(result.stdout).toContain(text);
  });

  it('fails with usage for an unknown command', async () => {
    const result = await runCli(['serve-everything']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("unknown command 'serve-everything'");
  });
});
