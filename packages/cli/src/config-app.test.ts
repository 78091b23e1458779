import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LlmAgent, runAgent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { McpToolset } from '@adk/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, EXAMPLES, offlineEnv, runCli } from './__fixtures__/cli.js';

// Apps written as root_agent.yaml (ADK's Agent Config) work wherever code apps do.
const work = mkdtempSync(join(tmpdir(), 'adk-config-app-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const weatherDesk = join(EXAMPLES, 'weather_desk');

/** An agents folder with a YAML app (`broken` has an error in its sub-agent file). */
const agents = join(work, 'agents');
mkdirSync(join(agents, 'greeter'), { recursive: true });
mkdirSync(join(agents, 'broken'), { recursive: true });
writeFileSync(
  join(agents, 'greeter', 'root_agent.yaml'),
  'name: greeter\ndescription: Greets in YAML.\nmodel: gemini-2.5-flash\ninstruction: Greet the user.\n',
);
writeFileSync(
  join(agents, 'broken', 'root_agent.yaml'),
  'name: broken\ninstruction: x\nsub_agents:\n  - config_path: ../greeter/root_agent.yaml\n',
);

describe('adk run', () => {
  it('chats with the YAML example: its tool from tools.ts, then a transfer to the YAML sub-agent', async () => {
    const dataDir = join(work, 'run');
    const result = await runCli(['run', weatherDesk, '--data-dir', dataDir], {
      input: 'What is the weather in Paris?\nWhat should I pack for Tokyo?\n',
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('→ get_weather({"city":"Paris"})');
    expect(result.stdout).toContain('→ transfer_to_agent({"agent_name":"packing_advisor"})');
    expect(result.stdout).toContain('[packing_advisor]: [offline demo model');
  });

  it('prints the config error (file, YAML path, expected, found) and exits 1', async () => {
    const result = await runCli(['run', join(agents, 'broken'), '--data-dir', join(work, 'run2')], {
      input: 'hi\n',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(join(agents, 'broken', 'root_agent.yaml'));
    expect(result.stderr).toContain('at sub_agents[0].config_path: expected a path inside the app folder');
    expect(result.stderr).toContain('which leaves it');
  });
});

describe('adk create --type=config', () => {
  // Packing the @adk/* packages from the checkout (pnpm pack, one per package) takes about 12 s on
  // an idle 2-core machine and more than 20 s under a loaded CI run.
  it('scaffolds a root_agent.yaml project that adk run serves', { timeout: 120_000 }, async () => {
    const created = await runCli(['create', 'yaml_demo', '--type=config'], { cwd: work, timeoutMs: 100_000 });
    expect(created.code, created.stderr).toBe(0);
    const dir = join(work, 'yaml_demo');
    for (const file of ['package.json', 'root_agent.yaml', '.env.example', 'README.md', '.gitignore'])
      expect(existsSync(join(dir, file)), file).toBe(true);
    expect(existsSync(join(dir, 'agent.ts'))).toBe(false);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(Object.keys(pkg.dependencies)).toEqual(['@adk/config', '@adk/core', 'zod']);
    // From a checkout, @adk/config is packed into the project like the other @adk/* packages.
    expect(pkg.dependencies['@adk/config']).toMatch(/^file:vendor\/adk\/adk-config-.*\.tgz$/);
    expect(readFileSync(join(dir, 'root_agent.yaml'), 'utf8')).toContain('name: yaml_demo\n');

    const run = await runCli(['run', '.'], { cwd: dir, input: 'Hello there\n' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('[yaml_demo]: [offline demo model');
  });

  it("takes adk-python's capitalised spelling and runs the YAML file itself", async () => {
    const created = await runCli(['create', 'caps_demo', '--type', 'CONFIG', '--packages', 'registry'], {
      cwd: work,
    });
    expect(created.code, created.stderr).toBe(0);
    const run = await runCli(['run', join(work, 'caps_demo', 'root_agent.yaml')], {
      cwd: work,
      input: 'Hi\n',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('[caps_demo]: [offline demo model');
  });

  it('refuses an unknown --type', async () => {
    const result = await runCli(['create', 'nope', '--type=xml'], { cwd: work });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Invalid --type "xml"');
  });
});

describe('adk eval and adk mcp', () => {
  it('evaluates the YAML example on its eval set', async () => {
    const r = await runCli([
      'eval',
      weatherDesk,
      join(weatherDesk, 'weather_desk.evalset.json'),
      '--config',
      join(weatherDesk, 'test_config.json'),
      '--no-history',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('✓ weather_in_paris  tool_trajectory_avg_score 1.000/1');
  });

  it('serves the YAML example as an MCP server', async () => {
    const served = new McpToolset({
      name: 'adk-mcp',
      connection: {
        type: 'stdio',
        command: process.execPath,
        args: [BIN, 'mcp', weatherDesk],
        env: offlineEnv() as Record<string, string>,
      },
      connectTimeoutMs: 20_000,
    });
    try {
      expect((await served.listTools()).map((t) => t.name)).toEqual(['weather_desk']);
      const caller = new LlmAgent({
        name: 'caller',
        model: new ScriptedModel({
          script: [functionCallResponse('weather_desk', { message: 'weather in Paris?' }), 'ok'],
        }),
        tools: [served],
      });
      const result = await runAgent(caller, 'ask');
      const response = result.events.flatMap((e) => e.content?.parts ?? []).find((p) => p.functionResponse);
      expect(response?.functionResponse?.response.result).toMatch(/offline demo model/i);
    } finally {
      await served.close();
    }
  });
});

describe('adk api_server with YAML apps', () => {
  let child: ChildProcessWithoutNullStreams;
  let url: string;
  let output = '';
  beforeAll(async () => {
    const dataDir = join(work, 'served');
    child = spawn(
      process.execPath,
      [BIN, 'api_server', EXAMPLES, '--port', '0', '--data-dir', dataDir, '--no-a2a'],
      {
        env: offlineEnv({ DATABASE_URL: `sqlite://${join(dataDir, 'sessions.db')}` }),
      },
    );
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      output += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      output += d;
    });
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000);
      child.stdout.on('data', () => {
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match?.[1] && output.includes('Press Ctrl-C')) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.on('close', () => reject(new Error(`server exited:\n${output}`)));
    });
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const closed = new Promise((resolve) => child.on('close', resolve));
      child.kill('SIGTERM');
      await closed;
    }
  });

  it('list-apps?detailed=true says language yaml for the YAML app', async () => {
    const names = (await (await fetch(`${url}/list-apps`)).json()) as string[];
    expect(names).toContain('weather_desk');
    const detailed = (await (await fetch(`${url}/list-apps?detailed=true`)).json()) as {
      apps: { name: string; rootAgentName: string; description: string; language: string }[];
    };
    const yaml = detailed.apps.find((a) => a.name === 'weather_desk');
    expect(yaml).toMatchObject({
      rootAgentName: 'weather_desk',
      description: 'Answers weather questions and hands packing advice to a specialist.',
      language: 'yaml',
    });
    expect(detailed.apps.find((a) => a.name === 'assistant')?.language).toBe('typescript');
  });

  it('/run drives the YAML app: its tool runs and the callback writes user state', async () => {
    const session = await fetch(`${url}/apps/weather_desk/users/u1/sessions`, { method: 'POST' });
    expect(session.status).toBe(200);
    const { id } = (await session.json()) as { id: string };
    const run = await fetch(`${url}/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        appName: 'weather_desk',
        userId: 'u1',
        sessionId: id,
        newMessage: { role: 'user', parts: [{ text: 'What is the weather in Paris?' }] },
      }),
    });
    expect(run.status).toBe(200);
    const events = (await run.json()) as { author: string; content?: { parts: Record<string, unknown>[] } }[];
    const parts = events.flatMap((e) => e.content?.parts ?? []);
    expect(parts.find((p) => p.functionCall)).toMatchObject({
      functionCall: { name: 'get_weather', args: { city: 'Paris' } },
    });
    expect(parts.find((p) => p.functionResponse)).toMatchObject({
      functionResponse: { name: 'get_weather', response: { city: 'Paris' } },
    });
    const stored = (await (await fetch(`${url}/apps/weather_desk/users/u1/sessions/${id}`)).json()) as {
      state: Record<string, unknown>;
    };
    expect(stored.state['user:visits']).toBe(1);
  });
});
