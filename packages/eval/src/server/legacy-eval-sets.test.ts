import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemorySessionService } from '@adk/core';
import { type AdkServer, createAdkServer } from '@adk/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { weatherAgent } from '../__fixtures__/weather-agent.js';
import { evalRoutes } from '../server.js';

// adk-python's legacy `.test.json` files dropped into an app folder: listed, read and run by the
// eval routes like `.evalset.json` files, and never rewritten.

const fixture = (name: string) => new URL(`../__fixtures__/${name}`, import.meta.url).pathname;
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

const metrics = {
  evalMetrics: [
    { metricName: 'tool_trajectory_avg_score', threshold: 1 },
    { metricName: 'response_match_score', threshold: 0.8 },
  ],
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'adk-eval-legacy-routes-'));
  const app = join(dir, 'weather_agent');
  await mkdir(app);
  await copyFile(fixture('turns/weather_turns.test.json'), join(app, 'weather_turns.test.json'));
  await copyFile(fixture('legacy.test.json'), join(app, 'dice.test.json'));
  await copyFile(fixture('passing.evalset.json'), join(app, 'passing.evalset.json'));
  await copyFile(fixture('turns/malformed_turns.test.json'), join(app, 'broken.test.json'));
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

describe('legacy .test.json files in an app folder', () => {
  it('are listed beside the eval sets, by the name of the file', async () => {
    expect(await call('GET', '/apps/weather_agent/eval-sets')).toEqual({
      evalSetIds: ['broken', 'dice', 'passing', 'weather_turns'],
    });
    expect(await call('GET', '/dev/apps/weather_agent/eval_sets')).toEqual([
      'broken',
      'dice',
      'passing',
      'weather_turns',
    ]);
  });

  it('serve a list of turns as one case and run it', async () => {
    expect(await call('GET', '/apps/weather_agent/eval_sets/weather_turns/evals')).toEqual(['weather_turns']);
    expect(
      await call('GET', '/apps/weather_agent/eval-sets/weather_turns/eval-cases/weather_turns'),
    ).toMatchObject({
      evalId: 'weather_turns',
      conversation: [
        {
          userContent: { parts: [{ text: 'What is the weather in Paris?' }] },
          intermediateData: { toolUses: [{ name: 'get_weather', args: { city: 'Paris' } }] },
        },
        { userContent: { parts: [{ text: 'And in London?' }] } },
      ],
    });
    const run = (await call('POST', '/apps/weather_agent/eval-sets/weather_turns/run', metrics)) as {
      runEvalResults: Record<string, unknown>[];
    };
    expect(run.runEvalResults).toEqual([
      expect.objectContaining({
        evalSetId: 'weather_turns',
        evalId: 'weather_turns',
        finalEvalStatus: 1,
        overallEvalMetricResults: [
          expect.objectContaining({ metricName: 'tool_trajectory_avg_score', score: 1, evalStatus: 1 }),
          expect.objectContaining({ metricName: 'response_match_score', score: 1, evalStatus: 1 }),
        ],
      }),
    ]);
    // And through the older spelling, on the list of named cases.
    expect(await call('GET', '/apps/weather_agent/eval_sets/dice/evals')).toEqual(['roll_twice']);
  });

  it('answer 400 naming the file and field when a file is malformed', async () => {
    const body = (await call('GET', '/apps/weather_agent/eval_sets/broken/evals', undefined, 400)) as {
      code: string;
      detail: string;
    };
    expect(body.code).toBe('EVAL_FORMAT');
    expect(body.detail).toContain('broken.test.json');
    expect(body.detail).toContain('[1].expected_tool_use[0].tool_name');
    await call('POST', '/apps/weather_agent/eval-sets/broken/run', metrics, 400);
  });

  it('are never rewritten: a change writes the set as <id>.evalset.json, which is read from then on', async () => {
    const legacyPath = join(dir, 'weather_agent', 'weather_turns.test.json');
    const before = await readFile(legacyPath, 'utf8');
    await call('DELETE', '/apps/weather_agent/eval-sets/weather_turns/eval-cases/weather_turns');
    expect(await readFile(legacyPath, 'utf8')).toBe(before);
    expect(await call('GET', '/apps/weather_agent/eval_sets/weather_turns/evals')).toEqual([]);
    expect(
      JSON.parse(await readFile(join(dir, 'weather_agent', 'weather_turns.evalset.json'), 'utf8')),
    ).toMatchObject({ eval_set_id: 'weather_turns', eval_cases: [] });
    expect((await call('GET', '/apps/weather_agent/eval-sets')) as { evalSetIds: string[] }).toEqual({
      evalSetIds: ['broken', 'dice', 'passing', 'weather_turns'],
    });
    // A new set cannot take the name of a legacy file.
    await call('POST', '/apps/weather_agent/eval-sets', { evalSet: { evalSetId: 'dice' } }, 400);
    await writeFile(join(dir, 'weather_agent', 'notes.json'), '{}');
    expect(
      ((await call('GET', '/apps/weather_agent/eval-sets')) as { evalSetIds: string[] }).evalSetIds,
    ).not.toContain('notes');
  });
});
