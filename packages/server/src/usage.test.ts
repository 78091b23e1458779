import { LlmAgent, type LlmResponse } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './__fixtures__/apps.js';

// Tokens and cost per run, session and user, from the run records in the sessions' database
// (PGlite), with the server's price overrides.

let t: TestServer;

function metered(): LlmAgent {
  return new LlmAgent({
    name: 'metered',
    model: new ScriptedModel({
      respond: (): LlmResponse => ({
        content: { role: 'model', parts: [{ text: 'ok' }] },
        modelVersion: 'house-model-7',
        usageMetadata: {
          promptTokenCount: 1000,
          cachedContentTokenCount: 500,
          candidatesTokenCount: 100,
          thoughtsTokenCount: 50,
          totalTokenCount: 1150,
        },
      }),
    }),
  });
}

async function turn(user: string, session: string): Promise<void> {
  await fetch(`${t.url}/apps/metered/users/${user}/sessions/${session}`, { method: 'POST' });
  const res = await fetch(`${t.url}/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      appName: 'metered',
      userId: user,
      sessionId: session,
      newMessage: { role: 'user', parts: [{ text: 'hi' }] },
    }),
  });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  t = await startServer({
    apps: { metered: metered() },
    // Per million tokens: 500 fresh × 2 + 500 cached × 0.5 + 150 output × 10 = 2750 → $0.00275 a call.
    modelPrices: { 'house-model': { input: 2, cachedInput: 0.5, output: 10 } },
  });
  await turn('alice', 's1');
  await turn('alice', 's1');
  await turn('alice', 's2');
  await turn('bob', 's3');
}, 120_000);
afterAll(() => t?.close());

describe('usage per run, session and user', () => {
  it('puts tokens and cost on each run record', async () => {
    const res = await fetch(`${t.url}/apps/metered/users/alice/sessions/s1/runs`);
    const { runs } = (await res.json()) as { runs: { usage?: Record<string, number> }[] };
    expect(runs).toHaveLength(2);
    expect(runs[0]?.usage).toEqual({
      modelCalls: 1,
      inputTokens: 1000,
      outputTokens: 100,
      cachedInputTokens: 500,
      reasoningTokens: 50,
      costUsd: 0.00275,
      unpricedCalls: 0,
    });
  });

  it('totals a session and a user', async () => {
    const session = await (await fetch(`${t.url}/apps/metered/users/alice/sessions/s1/usage`)).json();
    expect(session).toMatchObject({
      appName: 'metered',
      userId: 'alice',
      sessionId: 's1',
      runs: 2,
      usage: { modelCalls: 2, inputTokens: 2000, costUsd: 0.0055 },
    });
    const user = await (await fetch(`${t.url}/apps/metered/users/alice/usage`)).json();
    expect(user).toMatchObject({ appName: 'metered', userId: 'alice', runs: 3, usage: { costUsd: 0.00825 } });
    const nobody = await (await fetch(`${t.url}/apps/metered/users/carol/usage`)).json();
    expect(nobody).toMatchObject({ runs: 0, usage: { modelCalls: 0, costUsd: 0 } });
  });

  it('answers 404 for an unknown app and 400 for a malformed id', async () => {
    expect((await fetch(`${t.url}/apps/nope/users/alice/usage`)).status).toBe(404);
    const bad = await fetch(`${t.url}/apps/metered/users/${encodeURIComponent('a/../b\u0000')}/usage`);
    expect([400, 404, 422]).toContain(bad.status);
  });
});
