import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Event,
  FunctionAgent,
  InMemoryRunner,
  JoinNode,
  LlmAgent,
  type NodeContext,
  NodeTimeoutError,
  node,
  START,
  userContent,
  Workflow,
} from '../index.js';
import { ScriptedModel } from '../testing/index.js';

async function run(agent: Workflow) {
  const runner = new InMemoryRunner({ agent });
  const events: Event[] = [];
  for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('go') }))
    events.push(e);
  return events;
}

const fast = { initialDelay: 0.001, maxDelay: 0.01, jitter: 0 };

class FlakyError extends Error {}

describe('Workflow: failures', () => {
  it('retries a failing node with an error event per failed attempt, then goes on', async () => {
    let calls = 0;
    const flaky = node(
      (ctx: NodeContext) => {
        calls++;
        if (ctx.attemptCount < 3) throw new FlakyError(`attempt ${ctx.attemptCount}`);
        return `ok after ${ctx.attemptCount}`;
      },
      { name: 'flaky', retryConfig: { ...fast, exceptions: ['FlakyError'] } },
    );
    const events = await run(new Workflow({ name: 'wf', edges: [START, flaky] }));
    expect(calls).toBe(3);
    const errors = events.filter((e) => e.errorCode);
    expect(errors.map((e) => e.errorMessage)).toEqual([
      'Node "flaky" failed (attempt 1): attempt 1',
      'Node "flaky" failed (attempt 2): attempt 2',
    ]);
    expect(errors.every((e) => e.nodeInfo?.path === 'wf@1/flaky@1')).toBe(true);
    expect(events.at(-1)?.output).toBe('ok after 3');
  });

  it('does not retry errors whose class is not listed, and ADK defaults allow 5 attempts', async () => {
    let calls = 0;
    const other = node(
      () => {
        calls++;
        throw new TypeError('nope');
      },
      { name: 'other', retryConfig: { ...fast, exceptions: [FlakyError] } },
    );
    const events = await run(new Workflow({ name: 'wf', edges: [START, other] }));
    expect(calls).toBe(1);
    expect(events.at(-1)?.errorMessage).toMatch(/nope/);

    let tries = 0;
    const always = node(
      () => {
        tries++;
        throw new FlakyError('again');
      },
      { name: 'always', retryConfig: fast },
    );
    const more = await run(new Workflow({ name: 'wf', edges: [START, always] }));
    expect(tries).toBe(5);
    expect(more.filter((e) => e.errorCode)).toHaveLength(5);
  });

  it('a node over its timeout fails with NodeTimeoutError, which is retried', async () => {
    const slow = node(
      async (ctx: NodeContext) => {
        if (ctx.attemptCount === 1) {
          await new Promise((r) => setTimeout(r, 200));
          return 'late';
        }
        return 'fast enough';
      },
      { name: 'slow', timeout: 0.02, retryConfig: { ...fast, exceptions: [NodeTimeoutError] } },
    );
    const events = await run(new Workflow({ name: 'wf', edges: [START, slow] }));
    const error = events.find((e) => e.errorCode);
    expect(error?.errorCode).toBe('NODE_TIMEOUT');
    expect(error?.errorMessage).toMatch(/timed out after 0.02 s/);
    expect(events.at(-1)?.output).toBe('fast enough');
  });

  it('after the last attempt, cancels running siblings, runs nothing after, and ends with the error event', async () => {
    let siblingAborted = false;
    let afterRan = false;
    const failing = node(
      async () => {
        await new Promise((r) => setTimeout(r, 5));
        throw new Error('broken');
      },
      { name: 'failing', retryConfig: { ...fast, maxAttempts: 2 } },
    );
    const sibling = async (ctx: NodeContext) => {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2000);
        ctx.abortSignal.addEventListener('abort', () => {
          siblingAborted = true;
          clearTimeout(timer);
          resolve();
        });
      });
      return 'sibling';
    };
    const after = () => {
      afterRan = true;
    };
    const join = new JoinNode('join');
    const started = Date.now();
    const events = await run(new Workflow({ name: 'wf', edges: [START, [failing, sibling], join, after] }));
    expect(Date.now() - started).toBeLessThan(1500);
    expect(siblingAborted).toBe(true);
    expect(afterRan).toBe(false);
    const last = events.at(-1);
    expect(last?.errorMessage).toBe('Node "failing" failed (attempt 2): broken');
    expect(events.filter((e) => e.errorCode)).toHaveLength(2);
  });
});

describe('Workflow: cancellation and output schema', () => {
  it('aborting the run reaches running nodes through ctx.abortSignal and ends with a CANCELLED event', async () => {
    let sawAbort = false;
    const waits = async (ctx: NodeContext) => {
      await new Promise<void>((resolve) => {
        ctx.abortSignal.addEventListener('abort', () => {
          sawAbort = true;
          resolve();
        });
      });
      return 'never used';
    };
    const after = () => 'after';
    const runner = new InMemoryRunner({ agent: new Workflow({ name: 'wf', edges: [START, waits, after] }) });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const events: Event[] = [];
    for await (const e of runner.run({
      userId: 'u',
      sessionId: 's',
      newMessage: userContent('go'),
      signal: controller.signal,
    }))
      events.push(e);
    expect(sawAbort).toBe(true);
    expect(events.at(-1)?.errorCode).toBe('CANCELLED');
    expect(events.some((e) => e.nodeInfo?.path === 'wf@1/after@1')).toBe(false);
  });

  it("checks the workflow's output against outputSchema", async () => {
    const make = () => ({ total: 'many' });
    const events = await run(
      new Workflow({ name: 'wf', edges: [START, make], outputSchema: z.object({ total: z.number() }) }),
    );
    expect(events.at(-1)?.errorCode).toBe('VALIDATION');
    expect(events.at(-1)?.errorMessage).toMatch(/does not match its outputSchema/);
  });
});

describe('Workflow: an agent node that reports an error', () => {
  it('fails the node (NodeReportedError) without a second error event; a failing agent node is retried', async () => {
    let calls = 0;
    const model = new ScriptedModel({
      respond: () => {
        calls++;
        return calls === 1 ? new Error('model down') : 'recovered';
      },
    });
    const agent = new LlmAgent({ name: 'writer', model });
    const reporting = new FunctionAgent({
      name: 'reporter',
      run: async function* (ctx, self) {
        yield self.event(ctx, { errorCode: 'UPSTREAM', errorMessage: 'the upstream said no' });
      },
    });
    const once = await run(
      new Workflow({
        name: 'wf',
        edges: [
          START,
          reporting,
          function never() {
            return 'never';
          },
        ],
      }),
    );
    const errors = once.filter((e) => e.errorCode);
    expect(errors.map((e) => e.errorCode)).toEqual(['UPSTREAM']);
    expect(once.some((e) => e.nodeInfo?.path.includes('never'))).toBe(false);

    const retried = await run(
      new Workflow({
        name: 'wf',
        edges: [START, node(agent, { retryConfig: fast })],
      }),
    );
    expect(retried.at(-1)?.output).toBe('recovered');
  });
});
