import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, EXAMPLES, FIXTURE_APPS, offlineEnv, runCli } from './__fixtures__/cli.js';

interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * Starts `adk <command> <dir> --port 0` and waits for the URL it prints. Sessions go to SQLite
 * through DATABASE_URL: a fresh embedded PGlite takes seconds to initialize on a busy machine, and
 * the server's own suite covers it.
 */
async function start(command: string, dir: string, dataDir: string): Promise<Served> {
  const child = spawn(process.execPath, [BIN, command, dir, '--port', '0', '--data-dir', dataDir], {
    env: offlineEnv({ DATABASE_URL: `sqlite://${join(dataDir, 'sessions.db')}` }),
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000);
    const check = () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1] && output.includes('Press Ctrl-C')) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', check);
    void exited.then(() => reject(new Error(`server exited:\n${output}`)));
  });
  return { child, url, output: () => output, exited };
}

async function post(url: string, body: unknown): Promise<{ status: number; json: unknown; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text };
}

type WireEvent = {
  author: string;
  content?: {
    parts: {
      text?: string;
      functionCall?: { name: string; args: unknown };
      functionResponse?: { name: string; response: unknown };
    }[];
  };
};

async function runOnce(base: string, app: string, text: string): Promise<WireEvent[]> {
  const session = await post(`${base}/apps/${app}/users/u1/sessions`, {});
  expect(session.status).toBe(200);
  const sessionId = (session.json as { id: string }).id;
  const run = await post(`${base}/run`, {
    appName: app,
    userId: 'u1',
    sessionId,
    newMessage: { role: 'user', parts: [{ text }] },
  });
  expect(run.status, run.text).toBe(200);
  return run.json as WireEvent[];
}

const dataDir = mkdtempSync(join(tmpdir(), 'adk-serve-'));
let examples: Served;

beforeAll(async () => {
  examples = await start('web', EXAMPLES, join(dataDir, 'examples'));
}, 30_000);

afterAll(async () => {
  if (examples && examples.child.exitCode === null) examples.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('adk web / adk api_server', () => {
  it('prints the URL of the web UI and lists the example apps', async () => {
    expect(examples.output()).toContain(`Open the web UI: ${examples.url}/dev-ui/`);
    expect(examples.output()).toContain('Sessions: sqlite://');
    const response = await fetch(`${examples.url}/list-apps`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(
      expect.arrayContaining(['a2a_pair', 'approval', 'assistant', 'pipeline', 'router']),
    );
    const root = await fetch(`${examples.url}/`, { redirect: 'manual' });
    expect(root.status).toBeGreaterThanOrEqual(300);
    expect(root.headers.get('location')).toBe('/dev-ui/');
  });

  it('runs an example app over HTTP with the demo model', async () => {
    const events = await runOnce(examples.url, 'assistant', 'What is 6 * 7?');
    const parts = events.flatMap((e) => e.content?.parts ?? []);
    expect(parts.find((p) => p.functionCall)?.functionCall).toMatchObject({ name: 'calculate' });
    expect(parts.find((p) => p.functionResponse)?.functionResponse?.response).toMatchObject({ result: 42 });
  });

  it('a2a_pair: the coordinator reaches the assistant app of the same server over A2A', async () => {
    const events = await runOnce(examples.url, 'a2a_pair', 'What is the weather in Paris?');
    const authors = events.map((e) => e.author);
    expect(authors).toContain('coordinator');
    expect(authors).toContain('remote_assistant');
    const remoteText = events
      .filter((e) => e.author === 'remote_assistant')
      .flatMap((e) => e.content?.parts ?? [])
      .map((p) => p.text ?? '')
      .join(' ');
    expect(remoteText).toContain('sunny, 24 °C');
  });

  it('api_server answers a bad agent module with an error naming the file, and stops on SIGTERM', async () => {
    const served = await start('api_server', FIXTURE_APPS, join(dataDir, 'fixtures'));
    try {
      const apps = await (await fetch(`${served.url}/list-apps`)).json();
      expect(apps).toEqual(['broken', 'good', 'no_export']);
      const session = await post(`${served.url}/apps/broken/users/u1/sessions`, {});
      const run = await post(`${served.url}/run`, {
        appName: 'broken',
        userId: 'u1',
        sessionId: (session.json as { id?: string } | undefined)?.id ?? 's1',
        newMessage: { role: 'user', parts: [{ text: 'hi' }] },
      });
      expect(run.status).toBeGreaterThanOrEqual(400);
      expect(run.text).toContain(join(FIXTURE_APPS, 'broken', 'agent.ts'));
    } finally {
      served.child.kill('SIGTERM');
    }
    expect(await served.exited).toBe(0);
    expect(served.output()).toContain('Stopped.');
  });

  it('says which port is taken when it cannot listen', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = await runCli(['api_server', FIXTURE_APPS, '--port', String(port)], {
        env: offlineEnv({ DATABASE_URL: `sqlite://${join(dataDir, 'taken.db')}` }),
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`adk: Port ${port} on 127.0.0.1 is already in use`);
    } finally {
      blocker.close();
    }
  });
});
