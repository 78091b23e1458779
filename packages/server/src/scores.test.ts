import { attachScorers, defineScorer, LlmAgent } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './__fixtures__/apps.js';

// Scorers on live traffic through the server: sampled turns become score jobs in the PGlite
// database, the server's worker runs them, and the score routes list and aggregate the results.

interface Score {
  invocationId: string;
  sessionId: string;
  scorerName: string;
  scorerVersion: string;
  status: string;
  score?: number;
  error?: string;
  traceId?: string;
}

let server: TestServer;
beforeAll(async () => {
  const agent = attachScorers(
    new LlmAgent({ name: 'scored', model: new ScriptedModel({ respond: () => 'hello there' }) }),
    [
      defineScorer({
        name: 'length',
        version: '2',
        score: (t) => ({ score: t.responseText.length, reason: 'chars' }),
      }),
      defineScorer({
        name: 'broken',
        score: () => {
          throw new Error('scorer bug');
        },
      }),
    ],
  );
  server = await startServer({
    apps: { scored: agent },
    scoring: { scorers: [defineScorer({ name: 'app_wide', score: () => 1 })], pollMs: 50 },
  });
}, 120_000);
afterAll(async () => {
  await server?.close();
});

async function run(sessionId: string): Promise<Record<string, unknown>[]> {
  const response = await fetch(`${server.url}/run`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      appName: 'scored',
      userId: 'u',
      sessionId,
      newMessage: { role: 'user', parts: [{ text: 'hi' }] },
    }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>[];
}

async function scores(query = ''): Promise<Score[]> {
  const response = await fetch(`${server.url}/apps/scored/scores${query}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { scores: Score[] }).scores;
}

describe('scores over HTTP', () => {
  it('scores each turn after it answered; a throwing scorer fails no turn; routes list and aggregate', async () => {
    const created = await fetch(`${server.url}/apps/scored/users/u/sessions/s1`, { method: 'POST' });
    expect(created.ok).toBe(true);
    const before = Date.now();
    for (let i = 0; i < 3; i++) {
      const events = await run('s1');
      expect(events.some((e) => e.errorCode !== undefined)).toBe(false);
      expect(JSON.stringify(events.at(-1))).toContain('hello there');
    }
    await expect.poll(async () => (await scores()).length, { timeout: 60_000, interval: 100 }).toBe(9);
    const all = await scores();
    const length = all.filter((s) => s.scorerName === 'length');
    expect(length).toHaveLength(3);
    expect(length.every((s) => s.status === 'ok' && s.score === 11 && s.scorerVersion === '2')).toBe(true);
    expect(new Set(length.map((s) => s.invocationId)).size).toBe(3);
    const broken = all.filter((s) => s.scorerName === 'broken');
    expect(broken.every((s) => s.status === 'failed' && s.error === 'Error: scorer bug')).toBe(true);
    expect(await scores('?scorer=app_wide&limit=2')).toHaveLength(2);
    expect(await scores(`?scorer=length&from=${before}&to=${Date.now() + 1}`)).toHaveLength(3);
    expect(await scores(`?scorer=length&to=${before}`)).toHaveLength(0);

    const summary = await fetch(`${server.url}/apps/scored/scores/summary?scorer=length&bucket_ms=3600000`);
    expect(summary.status).toBe(200);
    const { summaries } = (await summary.json()) as { summaries: Record<string, unknown>[] };
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    const total = summaries.reduce((n, s) => n + (s.count as number), 0);
    expect(total).toBe(3);
    expect(summaries[0]).toMatchObject({
      scorerName: 'length',
      mean: 11,
      p50: 11,
      min: 11,
      max: 11,
      failed: 0,
    });
  }, 120_000);

  it('a malformed query is a 422 VALIDATION; an unknown app a 404', async () => {
    for (const query of [
      '?from=abc',
      '?to=-5',
      '?scorer=not%20a%20name',
      '?from=10&to=5',
      '?limit=NaN',
      '?invocation=%01',
    ]) {
      const response = await fetch(`${server.url}/apps/scored/scores${query}`);
      expect(response.status, query).toBe(422);
      expect(((await response.json()) as { code: string }).code).toBe('VALIDATION');
    }
    const bucket = await fetch(`${server.url}/apps/scored/scores/summary?bucket_ms=10`);
    expect(bucket.status).toBe(422);
    const missing = await fetch(`${server.url}/apps/nope/scores`);
    expect(missing.status).toBe(404);
  });
});
