import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type Event,
  InMemoryRunner,
  InMemorySessionService,
  type NodeContext,
  node,
  pollRunsOptions,
  type RunLiveParams,
  START,
  userContent,
  Workflow,
} from './index.js';

async function run(agent: Workflow) {
  const runner = new InMemoryRunner({ agent });
  const events: Event[] = [];
  for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('go') }))
    events.push(e);
  return events;
}

describe('one convention each', () => {
  it('cancellation is `signal`: runLive takes it (abortSignal stays, deprecated), node contexts carry it', async () => {
    expectTypeOf<RunLiveParams['signal']>().toEqualTypeOf<AbortSignal | undefined>();
    let same = false;
    const probe = node(
      (ctx: NodeContext) => {
        same = ctx.signal === ctx.abortSignal && ctx.signal instanceof AbortSignal;
        return 'ok';
      },
      { name: 'probe' },
    );
    await run(new Workflow({ name: 'wf', edges: [START, probe] }));
    expect(same).toBe(true);
  });

  it('storage calls take { signal }: an aborted call rejects before it does anything', async () => {
    const sessions = new InMemorySessionService();
    const aborted = AbortSignal.abort(new Error('gone'));
    await expect(sessions.createSession({ appName: 'a', userId: 'u', signal: aborted })).rejects.toThrow(
      'gone',
    );
    const session = await sessions.createSession({ appName: 'a', userId: 'u' });
    await expect(
      sessions.getSession({ appName: 'a', userId: 'u', sessionId: session.id, signal: aborted }),
    ).rejects.toThrow('gone');
    await expect(sessions.listSessions({ appName: 'a', signal: aborted })).rejects.toThrow('gone');
    await expect(
      sessions.deleteSession({ appName: 'a', userId: 'u', sessionId: session.id, signal: aborted }),
    ).rejects.toThrow('gone');
    expect(await sessions.getSession({ appName: 'a', userId: 'u', sessionId: session.id })).toBeDefined();
  });

  it('durations name their unit: timeoutMs and retry delays in ms beside the ADK seconds', async () => {
    const slow = node(
      async (ctx: NodeContext) => {
        if (ctx.attemptCount === 1) await new Promise((r) => setTimeout(r, 300));
        return `attempt ${ctx.attemptCount}`;
      },
      {
        name: 'slow',
        timeoutMs: 20,
        retryConfig: { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 5, jitter: 0 },
      },
    );
    expect(slow.timeout).toBe(0.02);
    expect(slow.timeoutMs).toBe(20);
    const events = await run(new Workflow({ name: 'wf', edges: [START, slow] }));
    expect(events.find((e) => e.errorCode)?.errorCode).toBe('NODE_TIMEOUT');
    expect(events.at(-1)?.output).toBe('attempt 2');
    expect(slow.retry.initialDelay).toBe(0.001);
  });

  it('pollRuns takes { heartbeat }; the bare boolean is its deprecated form', () => {
    expect(pollRunsOptions(true)).toEqual({ heartbeat: true });
    expect(pollRunsOptions({ heartbeat: false })).toEqual({ heartbeat: false });
    expect(pollRunsOptions(undefined)).toEqual({});
  });
});
