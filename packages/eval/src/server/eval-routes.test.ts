import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemorySessionService } from '@adk/core';
import { type AdkServer, createAdkServer } from '@adk/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { weatherAgent } from '../__fixtures__/weather-agent.js';
import { evalRoutes } from '../server.js';

// The eval routes mounted in a real @adk/server (its Fetch handler, no socket needed).
let dir: string;
let server: AdkServer;
const agent = weatherAgent();

async function call(method: string, path: string, body?: unknown, status = 200): Promise<unknown> {
  const response = await server.fetch(
    new Request(`http://127.0.0.1${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    }),
  );
  const text = await response.text();
  expect(response.status, `${method} ${path}: ${text}`).toBe(status);
  return text ? JSON.parse(text) : undefined;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'adk-eval-routes-'));
  const { mkdir } = await import('node:fs/promises');
  await mkdir(join(dir, 'weather_agent'));
  server = await createAdkServer({
    apps: { weather_agent: agent },
    sessionService: new InMemorySessionService(),
    a2a: false,
    tracing: false,
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    routes: [
      evalRoutes({
        agentsDir: dir,
        loadAgent: async () => agent,
        hasApp: (name) => name === 'weather_agent',
      }),
    ],
  });
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('eval routes on @adk/server', () => {
  it('creates a set, adds a recorded session as a case, runs it and serves the results', async () => {
    expect(await call('GET', '/apps/weather_agent/eval-sets')).toEqual({ evalSetIds: [] });
    expect(await call('GET', '/dev/apps/weather_agent/eval_sets')).toEqual([]);
    const created = await call('POST', '/apps/weather_agent/eval-sets', {
      eval_set: { eval_set_id: 'smoke' },
    });
    expect(created).toMatchObject({ evalSetId: 'smoke', name: 'smoke', evalCases: [] });
    await call('POST', '/apps/weather_agent/eval-sets', { evalSet: { evalSetId: 'smoke' } }, 400);
    await call('POST', '/apps/weather_agent/eval-sets', { evalSet: { evalSetId: 'bad id' } }, 400);
    expect(await call('GET', '/apps/weather_agent/eval_sets')).toEqual(['smoke']);

    // Record a conversation through the API, then turn it into an eval case.
    await call('POST', '/apps/weather_agent/users/u1/sessions/s1', {});
    await call('POST', '/run', {
      appName: 'weather_agent',
      userId: 'u1',
      sessionId: 's1',
      newMessage: { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
    });
    await call('POST', '/apps/weather_agent/eval_sets/smoke/add_session', {
      eval_id: 'paris',
      session_id: 's1',
      user_id: 'u1',
    });
    await call(
      'POST',
      '/apps/weather_agent/eval-sets/smoke/add-session',
      { evalId: 'x', sessionId: 'nope', userId: 'u1' },
      404,
    );
    expect(await call('GET', '/apps/weather_agent/eval_sets/smoke/evals')).toEqual(['paris']);
    const evalCase = (await call('GET', '/apps/weather_agent/eval-sets/smoke/eval-cases/paris')) as Record<
      string,
      unknown
    >;
    expect(evalCase).toMatchObject({
      evalId: 'paris',
      sessionInput: { appName: 'weather_agent', userId: 'u1' },
      conversation: [
        {
          userContent: { parts: [{ text: 'Weather in Paris?' }] },
          finalResponse: { parts: [{ text: 'It is sunny and 24 °C in Paris today.' }] },
        },
      ],
    });

    const run = (await call('POST', '/apps/weather_agent/eval-sets/smoke/run', {
      evalMetrics: [
        { metricName: 'tool_trajectory_avg_score', threshold: 1 },
        { metric_name: 'response_match_score', criterion: { threshold: 0.8 } },
      ],
    })) as { runEvalResults: Record<string, unknown>[] };
    expect(run.runEvalResults).toHaveLength(1);
    expect(run.runEvalResults[0]).toMatchObject({
      evalSetId: 'smoke',
      evalId: 'paris',
      finalEvalStatus: 1,
      userId: 'u1',
      overallEvalMetricResults: [
        { metricName: 'tool_trajectory_avg_score', score: 1, evalStatus: 1 },
        { metricName: 'response_match_score', score: 1, evalStatus: 1 },
      ],
    });

    const { evalResultIds } = (await call('GET', '/apps/weather_agent/eval-results')) as {
      evalResultIds: string[];
    };
    expect(evalResultIds).toHaveLength(1);
    expect(await call('GET', '/dev/apps/weather_agent/eval_results')).toEqual(evalResultIds);
    const stored = (await call('GET', `/apps/weather_agent/eval_results/${evalResultIds[0]}`)) as Record<
      string,
      unknown
    >;
    expect(stored).toMatchObject({ evalSetId: 'smoke', evalSetResultId: evalResultIds[0] });
    await call('GET', '/apps/weather_agent/eval-results/nope', undefined, 404);
  });

  it('updates and deletes cases with adk-python status codes', async () => {
    await call('POST', '/apps/weather_agent/eval_sets/edits');
    await call(
      'PUT',
      '/apps/weather_agent/eval_sets/edits/evals/c1',
      { eval_id: 'other', conversation: [] },
      400,
    );
    await call('PUT', '/apps/weather_agent/eval_sets/edits/evals/c1', { conversation: [] }, 404);
    await call('DELETE', '/apps/weather_agent/eval-sets/edits/eval-cases/c1', undefined, 404);
    await call('GET', '/apps/weather_agent/eval_sets/missing/evals', undefined, 400);
  });

  it('refuses set and result ids that would reach files outside the app folder', async () => {
    // A readable eval set and a result beside the app folder, not inside it.
    const { writeFile } = await import('node:fs/promises');
    await writeFile(
      join(dir, 'outside.evalset.json'),
      JSON.stringify({ eval_set_id: 'outside', eval_cases: [{ eval_id: 'secret_case', conversation: [] }] }),
    );
    await writeFile(join(dir, 'outside.evalset_result.json'), JSON.stringify({ eval_set_result_id: 'x' }));
    const up = encodeURIComponent('../outside');
    await call('GET', `/apps/weather_agent/eval_sets/${up}/evals`, undefined, 400);
    await call('DELETE', `/apps/weather_agent/eval-sets/${up}/eval-cases/secret_case`, undefined, 400);
    const results = encodeURIComponent('../../../outside');
    await call('GET', `/apps/weather_agent/eval_results/${results}`, undefined, 400);
  });

  it('lists metrics, and answers 404 for unknown apps', async () => {
    const { metricsInfo } = (await call('GET', '/apps/weather_agent/metrics-info')) as {
      metricsInfo: { metricName: string }[];
    };
    expect(metricsInfo.map((m) => m.metricName)).toContain('rubric_based_tool_use_quality_v1');
    expect(await call('GET', '/apps/weather_agent/eval_metrics')).toEqual(metricsInfo);
    await call('GET', '/apps/ghost/eval-sets', undefined, 404);
    await call('GET', '/dev/apps/ghost/eval_sets', undefined, 404);
  });
});
