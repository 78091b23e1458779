import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { offlineEnv, runCli } from './__fixtures__/cli.js';

// One project, created outside the repository the way a user would: `adk create` from this
// checkout, `npm install`, `tsc --noEmit`, then the project's own `adk run` through a pipe.
const work = realpathSync(mkdtempSync(join(tmpdir(), 'adk-create-install-')));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const repoRoot = realpathSync(new URL('../../..', import.meta.url));

/** The environment of a user's shell: without the npm_config_* variables pnpm sets for its scripts. */
function userEnv(): NodeJS.ProcessEnv {
  const env = offlineEnv();
  for (const key of Object.keys(env)) if (/^(npm|pnpm)_/i.test(key)) delete env[key];
  return env;
}

function sh(command: string, args: string[], cwd: string) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: userEnv(), timeout: 600_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('adk create from a checkout', () => {
  it('makes a project that npm installs, type-checks and runs', { timeout: 900_000 }, async () => {
    expect(relative(repoRoot, work).startsWith('..')).toBe(true);
    const created = await runCli(['create', 'my_agent'], { cwd: work, timeoutMs: 120_000 });
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(`packed from the checkout at ${repoRoot}`);
    const dir = join(work, 'my_agent');

    // Every @adk/* dependency is a tarball inside the project, @adk/core included (a peer of all).
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const specs: Record<string, string> = { ...pkg.dependencies, ...pkg.devDependencies };
    const adk = Object.entries(specs).filter(([name]) => name.startsWith('@adk/'));
    expect(Object.fromEntries(adk)).toMatchObject({
      '@adk/core': expect.stringMatching(/^file:vendor\/adk\/adk-core-\d+\.\d+\.\d+\.tgz$/),
      '@adk/cli': expect.stringMatching(/^file:vendor\/adk\/adk-cli-/),
      '@adk/server': expect.stringMatching(/^file:vendor\/adk\/adk-server-/),
      '@adk/dev-ui': expect.stringMatching(/^file:vendor\/adk\/adk-dev-ui-/),
      '@adk/eval': expect.stringMatching(/^file:vendor\/adk\/adk-eval-/),
      '@adk/mcp': expect.stringMatching(/^file:vendor\/adk\/adk-mcp-/),
      '@adk/config': expect.stringMatching(/^file:vendor\/adk\/adk-config-/),
    });
    for (const [, spec] of adk) expect(existsSync(join(dir, spec.slice('file:'.length)))).toBe(true);
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    expect(readme).toContain('packed from that checkout into');
    expect(readme).toContain('`vendor/adk/`');

    // `--loglevel=http` lists every registry request: none may be for an @adk/* package.
    const install = sh(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=http'],
      dir,
    );
    expect(install.status, install.output).toBe(0);
    expect(install.output).toContain('npm http fetch');
    expect(install.output).not.toMatch(/\/@adk(%2f|\/)/i);
    expect(install.output).not.toMatch(/\b404\b/);
    // Installed from the tarballs (copies), not linked back into the checkout.
    const installedCore = realpathSync(join(dir, 'node_modules', '@adk', 'core'));
    expect(installedCore.startsWith(dir)).toBe(true);
    expect(readdirSync(join(dir, 'node_modules', '@adk')).sort()).toEqual(
      adk.map(([name]) => name.slice('@adk/'.length)).sort(),
    );

    const tsc = sh(join(dir, 'node_modules', '.bin', 'tsc'), ['--noEmit'], dir);
    expect(tsc.output).toBe('');
    expect(tsc.status).toBe(0);

    // The project's own adk (from the tarball), with a question on stdin.
    const adkBin = join(dir, 'node_modules', '.bin', 'adk');
    const run = spawnSync(adkBin, ['run', '.'], {
      cwd: dir,
      input: 'What time is it in UTC?\n',
      encoding: 'utf8',
      env: userEnv(),
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain('Running my_agent (app my_agent)');
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.stdout).toContain('→ get_current_time(');
    expect(run.stdout).toMatch(/← get_current_time: \{"timezone":"UTC","time":"/);
    expect(run.stdout).toContain('[my_agent]: [offline demo model');
  });
});
