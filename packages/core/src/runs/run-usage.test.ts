import { describe, expect, it } from 'vitest';
import {
  InMemoryRunStore,
  InMemorySessionService,
  LlmAgent,
  type LlmResponse,
  priceTable,
  Runner,
  runUsageTotals,
  userContent,
} from '../index.js';
import { ScriptedModel } from '../testing/index.js';

// 1000 input (400 cached), 200 output, 100 reasoning. gemini-2.5-flash: $0.30 / $0.03 cached /
// $2.50 output per million: (600 × 0.30 + 400 × 0.03 + 300 × 2.50) / 1e6 = $0.000942.
const USAGE = {
  promptTokenCount: 1000,
  cachedContentTokenCount: 400,
  candidatesTokenCount: 200,
  thoughtsTokenCount: 100,
  totalTokenCount: 1300,
};

function runnerWith(
  modelVersion: string | undefined,
  prices?: ReturnType<typeof priceTable>,
  model = 'scripted-model',
) {
  const agent = new LlmAgent({
    name: 'a',
    model: new ScriptedModel({
      model,
      respond: (): LlmResponse => ({
        content: { role: 'model', parts: [{ text: 'ok' }] },
        usageMetadata: USAGE,
        ...(modelVersion ? { modelVersion } : {}),
      }),
    }),
  });
  return new Runner({
    appName: 'app',
    agent,
    sessionService: new InMemorySessionService(),
    runStore: new InMemoryRunStore(),
    autoCreateSession: true,
    ...(prices ? { prices } : {}),
  });
}

async function turn(runner: Runner, userId: string, sessionId: string) {
  for await (const _ of runner.run({ userId, sessionId, newMessage: userContent('hi') }));
}

describe('run usage', () => {
  it('records tokens and cost on the run record, cached and reasoning tokens priced apart', async () => {
    const runner = runnerWith('gemini-2.5-flash-001');
    await turn(runner, 'u', 's');
    const [run] = (await runner.listRuns({ sessionId: 's' })).runs;
    expect(run?.usage).toEqual({
      modelCalls: 1,
      inputTokens: 1000,
      outputTokens: 200,
      cachedInputTokens: 400,
      reasoningTokens: 100,
      costUsd: 0.000942,
      unpricedCalls: 0,
    });
  });

  it('counts an unpriced model apart, and uses the prices given to the runner', async () => {
    const unpriced = runnerWith('in-house-model');
    await turn(unpriced, 'u', 's');
    const [run] = (await unpriced.listRuns({ sessionId: 's' })).runs;
    expect(run?.usage).toMatchObject({ modelCalls: 1, costUsd: 0, unpricedCalls: 1 });
    const priced = runnerWith('in-house-model', priceTable({ 'in-house-model': { input: 1, output: 2 } }));
    await turn(priced, 'u', 's');
    const [again] = (await priced.listRuns({ sessionId: 's' })).runs;
    // 1000 × 1 + 300 × 2 per million (no cached price: cached input at the input price).
    expect(again?.usage).toMatchObject({ costUsd: 0.0016, unpricedCalls: 0 });
  });

  it("prices a call whose response names no model by its agent's model", async () => {
    const runner = runnerWith(undefined, undefined, 'claude-haiku-4-5');
    await turn(runner, 'u', 's');
    const [run] = (await runner.listRuns({ sessionId: 's' })).runs;
    // (600 × 1 + 400 × 0.1 + 300 × 5) / 1e6
    expect(run?.usage).toMatchObject({ costUsd: 0.00214, unpricedCalls: 0 });
  });

  it('totals the runs of a session and of a user', async () => {
    const runner = runnerWith('gemini-2.5-flash');
    await turn(runner, 'alice', 's1');
    await turn(runner, 'alice', 's1');
    await turn(runner, 'alice', 's2');
    await turn(runner, 'bob', 's3');
    const store = runner.runs.store;
    const session = await runUsageTotals(store, { appName: 'app', userId: 'alice', sessionId: 's1' });
    expect(session.runs).toBe(2);
    expect(session.usage).toMatchObject({ modelCalls: 2, inputTokens: 2000, costUsd: 0.001884 });
    const user = await runUsageTotals(store, { appName: 'app', userId: 'alice' });
    expect(user).toMatchObject({ runs: 3, usage: { modelCalls: 3, costUsd: 0.002826 } });
    const app = await runUsageTotals(store, { appName: 'app' });
    expect(app.usage.modelCalls).toBe(4);
  });
});
