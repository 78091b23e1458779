import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, offlineEnv } from './__fixtures__/cli.js';

// `adk api_server` serves adk-python's eval routes (from @adk/eval/server) for the apps it serves.
const AGENTS = new URL('./__fixtures__/eval/', import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), 'adk-eval-server-'));
let child: ChildProcessWithoutNullStreams;
let url: string;

beforeAll(async () => {
  child = spawn(
    process.execPath,
    [BIN, 'api_server', AGENTS, '--port', '0', '--data-dir', dataDir, '--no-a2a'],
    {
      env: offlineEnv({ DATABASE_URL: `sqlite://${join(dataDir, 'sessions.db')}` }),
    },
  );
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
    child.stdout.on('data', () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1] && output.includes('Press Ctrl-C')) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on('close', () => reject(new Error(`server exited:\n${output}`)));
  });
}, 70_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const closed = new Promise((resolve) => child.on('close', resolve));
    child.kill('SIGTERM');
    await closed;
  }
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(join(AGENTS, 'weather', '.adk'), { recursive: true, force: true });
});

describe('eval routes in adk api_server', () => {
  it('lists the app eval sets, runs one, and lists the stored result', async () => {
    const get = async (path: string) => (await fetch(`${url}${path}`)).json();
    expect(await get('/apps/weather/eval-sets')).toEqual({ evalSetIds: ['commute', 'smoke'] });
    expect(await get('/dev/apps/weather/eval_sets')).toEqual(['commute', 'smoke']);
    expect(await get('/apps/weather/eval_sets/smoke/evals')).toEqual(['paris', 'paris_then_london']);
    const response = await fetch(`${url}/apps/weather/eval-sets/smoke/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        evalCaseIds: ['paris'],
        evalMetrics: [{ metricName: 'response_match_score', threshold: 0.8 }],
      }),
    });
    expect(response.status).toBe(200);
    const run = (await response.json()) as { runEvalResults: { evalId: string; finalEvalStatus: number }[] };
    expect(run.runEvalResults.map((r) => [r.evalId, r.finalEvalStatus])).toEqual([['paris', 1]]);
    const { evalResultIds } = (await get('/apps/weather/eval-results')) as { evalResultIds: string[] };
    expect(evalResultIds).toHaveLength(1);
    expect(evalResultIds[0]).toMatch(/^weather_smoke_/);
  });

  it("lists and runs adk-python's oldest test file (a list of turns) dropped into the app folder", async () => {
    expect(await (await fetch(`${url}/apps/weather/eval_sets/commute/evals`)).json()).toEqual(['commute']);
    const response = await fetch(`${url}/apps/weather/eval-sets/commute/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        evalMetrics: [
          { metricName: 'tool_trajectory_avg_score', threshold: 1 },
          { metricName: 'response_match_score', threshold: 0.8 },
        ],
      }),
    });
    expect(response.status).toBe(200);
    const run = (await response.json()) as {
      runEvalResults: { evalId: string; finalEvalStatus: number; evalMetricResultPerInvocation: unknown[] }[];
    };
    expect(run.runEvalResults.map((r) => [r.evalId, r.finalEvalStatus])).toEqual([['commute', 1]]);
    expect(run.runEvalResults[0]?.evalMetricResultPerInvocation).toHaveLength(2);
  });
});
