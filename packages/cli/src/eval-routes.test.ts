import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, offlineEnv, runCli } from './__fixtures__/cli.js';

// How `adk api_server` mounts the eval routes of @adk/eval/server: where a single-app folder keeps
// its eval sets, and which failures to load @adk/eval are "not installed" (no routes) and which
// are real errors. The hook redirects the CLI's import of @adk/eval/server (see the fixture).
const AGENTS = new URL('./__fixtures__/eval/', import.meta.url).pathname;
const HOOK = pathToFileURL(new URL('./__fixtures__/eval-import-hook.mjs', import.meta.url).pathname).href;
const tmp = mkdtempSync(join(tmpdir(), 'adk-eval-routes-'));
const children: ChildProcessWithoutNullStreams[] = [];

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode !== null) continue;
    const closed = new Promise((resolve) => child.on('close', resolve));
    child.kill('SIGTERM');
    await closed;
  }
  rmSync(tmp, { recursive: true, force: true });
});

function env(name: string, hook?: { mode: 'elsewhere' | 'replace'; target: string }): NodeJS.ProcessEnv {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  return offlineEnv({
    DATABASE_URL: `sqlite://${join(dir, 'sessions.db')}`,
    ...(hook
      ? {
          NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${HOOK}`,
          ADK_TEST_EVAL_IMPORT: hook.mode,
          ADK_TEST_EVAL_TARGET: hook.target,
        }
      : {}),
  });
}

function args(dir: string, name: string): string[] {
  return ['api_server', dir, '--port', '0', '--data-dir', join(tmp, name), '--no-a2a'];
}

/** Starts `adk api_server`; resolves with its URL once it listens. */
async function start(dir: string, name: string, environment: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, [BIN, ...args(dir, name)], { env: environment });
  children.push(child);
  let output = '';
  const collect = (d: string) => {
    output += d;
  };
  child.stdout.setEncoding('utf8').on('data', collect);
  child.stderr.setEncoding('utf8').on('data', collect);
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    child.stdout.on('data', () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1] && output.includes('Press Ctrl-C')) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on('close', () => reject(new Error(`server exited:\n${output}`)));
  });
}

/** A module file at `<tmp>/<name>/node_modules/@adk/eval/dist/server.js` (so errors name @adk/eval). */
function fakeEvalServer(name: string, source: string): string {
  const dir = join(tmp, name, 'node_modules', '@adk', 'eval', 'dist');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'server.js');
  writeFileSync(file, source);
  return pathToFileURL(file).href;
}

describe('eval routes of adk api_server', () => {
  it('keeps the eval sets of a single-app folder in that folder (as adk-python does)', async () => {
    const url = await start(join(AGENTS, 'weather'), 'single', env('single'));
    expect(await (await fetch(`${url}/apps/weather/eval-sets`)).json()).toEqual({
      evalSetIds: ['commute', 'smoke'],
    });
    expect(await (await fetch(`${url}/apps/weather/eval_sets/smoke/evals`)).json()).toEqual([
      'paris',
      'paris_then_london',
    ]);
  }, 40_000);

  it('serves without eval routes when @adk/eval is not installed', async () => {
    const empty = join(tmp, 'no-eval', 'importer.js');
    mkdirSync(join(tmp, 'no-eval'), { recursive: true });
    const url = await start(
      AGENTS,
      'no-eval',
      env('no-eval', { mode: 'elsewhere', target: pathToFileURL(empty).href }),
    );
    expect(await (await fetch(`${url}/list-apps`)).json()).toEqual(['weather', 'with_server']);
    // The server's own placeholder answers (no eval sets), not @adk/eval's routes (which list `smoke`).
    expect(await (await fetch(`${url}/apps/weather/eval-sets`)).json()).toEqual({ evalSetIds: [] });
  }, 40_000);

  it('fails to start when @adk/eval is installed but throws while loading', async () => {
    const target = fakeEvalServer('broken', "throw new Error('eval exploded at load');\n");
    const result = await runCli(args(AGENTS, 'broken'), {
      env: env('broken', { mode: 'replace', target }),
      timeoutMs: 30_000,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('eval exploded at load');
  }, 40_000);

  it('fails to start when a dependency of @adk/eval is missing (not mistaken for @adk/eval missing)', async () => {
    const target = fakeEvalServer('missing-dep', "import 'adk-no-such-dependency';\nexport {};\n");
    const result = await runCli(args(AGENTS, 'missing-dep'), {
      env: env('missing-dep', { mode: 'replace', target }),
      timeoutMs: 30_000,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Cannot find package 'adk-no-such-dependency'");
  }, 40_000);
});
