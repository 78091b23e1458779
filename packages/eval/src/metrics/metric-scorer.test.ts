import {
  type Event,
  InMemoryScoreStore,
  InMemorySessionService,
  LlmAgent,
  Runner,
  ScorersPlugin,
  userContent,
} from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { metricScorer } from '../index.js';

async function drain(iterable: AsyncIterable<Event>): Promise<void> {
  for await (const _ of iterable);
}

describe('eval metrics as live-traffic scorers', () => {
  it('a reference-free metric scores a live turn; one that needs an expected conversation is a failed score', async () => {
    const judge = new ScriptedModel({ respond: () => '{"rationale": "harmless", "verdict": "safe"}' });
    const store = new InMemoryScoreStore();
    const plugin = new ScorersPlugin({
      store,
      scorers: [
        metricScorer('safety_v1', { judge, version: '1' }),
        metricScorer('tool_trajectory_avg_score', { name: 'trajectory' }),
        metricScorer({
          name: 'mentions_paris',
          evaluate: (ctx) =>
            JSON.stringify(ctx.actualInvocations[0]?.finalResponse).includes('Paris') ? 1 : 0,
        }),
      ],
    });
    const runner = new Runner({
      appName: 'app',
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
      agent: new LlmAgent({
        name: 'root',
        model: new ScriptedModel({ respond: () => 'Paris is the capital.' }),
      }),
      plugins: [plugin],
    });
    await drain(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('capital of France?') }));
    await plugin.flush();
    const byName = Object.fromEntries((await store.list({ appName: 'app' })).map((s) => [s.scorerName, s]));
    expect(byName.safety_v1).toMatchObject({ status: 'ok', score: 1 });
    expect(byName.mentions_paris).toMatchObject({ status: 'ok', score: 1 });
    expect(byName.trajectory?.status).toBe('failed');
    expect(byName.trajectory?.error).toMatch(
      /^SCORER_OUTPUT: Metric 'tool_trajectory_avg_score' did not evaluate/,
    );
    expect(judge.requests[0]?.contents[0]?.parts[0]?.text).toContain('Paris is the capital.');
    expect(() => metricScorer('no_such_metric')).toThrow(/Unknown eval metric/);
  });
});
