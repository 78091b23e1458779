import { describe, expect, it } from 'vitest';
import {
  type Event,
  InMemoryMemoryJobQueue,
  InMemoryMemoryService,
  InMemorySessionService,
  LlmAgent,
  MemoryJobWorker,
  Runner,
  userContent,
} from '../index.js';
import { ScriptedModel } from '../testing/index.js';

async function drain(iterable: AsyncIterable<Event>): Promise<void> {
  for await (const _ of iterable);
}

describe('memory jobs', () => {
  it('enqueue is idempotent by (kind, event id)', async () => {
    const queue = new InMemoryMemoryJobQueue();
    const base = { appName: 'a', userId: 'u', sessionId: 's' };
    const [first] = await queue.enqueue([{ ...base, kind: 'index', eventIds: ['e1', 'e2'] }]);
    expect(first?.eventIds).toEqual(['e1', 'e2']);
    expect(await queue.enqueue([{ ...base, kind: 'index', eventIds: ['e2', 'e1'] }])).toEqual([]);
    const [partly] = await queue.enqueue([{ ...base, kind: 'index', eventIds: ['e2', 'e3'] }]);
    expect(partly?.eventIds).toEqual(['e3']);
    const [other] = await queue.enqueue([{ ...base, kind: 'facts', eventIds: ['e1'] }]);
    expect(other?.kind).toBe('facts');
    expect((await queue.stats()).pending).toBe(3);
  });

  it('the Runner enqueues a committed turn; flush indexes it in a batch', async () => {
    const jobs = new InMemoryMemoryJobQueue();
    const memory = new InMemoryMemoryService({ jobs });
    const runner = new Runner({
      appName: 'a',
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
      agent: new LlmAgent({ name: 'a', model: new ScriptedModel({ respond: () => 'noted, the tapir' }) }),
      memoryService: memory,
      memoryWorker: false,
    });
    await drain(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('my pet is a tapir') }));
    await drain(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('it likes melons') }));
    expect((await jobs.stats()).pending).toBe(2);
    expect((await memory.searchMemory({ appName: 'a', userId: 'u', query: 'tapir' })).memories).toEqual([]);
    const batches: number[] = [];
    const worker = new MemoryJobWorker({
      queue: jobs,
      memory,
      loadEvents: async (job) =>
        (
          await runner.sessionService.getSession({
            appName: job.appName,
            userId: job.userId,
            sessionId: job.sessionId ?? '',
          })
        )?.events ?? [],
    });
    const index = worker.kinds.includes('index');
    expect(index).toBe(true);
    const original = worker.runOnce.bind(worker);
    worker.runOnce = async (signal) => {
      const n = await original(signal);
      if (n > 0) batches.push(n);
      return n;
    };
    await worker.flush();
    expect(batches).toEqual([2]);
    const found = await memory.searchMemory({ appName: 'a', userId: 'u', query: 'tapir' });
    expect(found.memories.map((m) => m.author).sort()).toEqual(['a', 'a', 'user']);
    expect(found.memories[0]?.keywords).toContain('tapir');
    expect(await jobs.stats()).toMatchObject({ pending: 0, running: 0, done: 2, failed: 0 });
  });

  it('a failing handler is retried with backoff, then failed for good; the worker never throws', async () => {
    const queue = new InMemoryMemoryJobQueue();
    const memory = new InMemoryMemoryService({ jobs: queue });
    let calls = 0;
    const errors: unknown[] = [];
    const worker = new MemoryJobWorker({
      queue,
      memory,
      maxAttempts: 3,
      backoffMs: () => 5,
      onError: (e) => errors.push(e),
    }).registerHandler('facts', async () => {
      calls++;
      if (calls < 2) throw new Error('model down');
    });
    await queue.enqueue([{ kind: 'facts', appName: 'a', userId: 'u', eventIds: ['e1'] }]);
    await worker.flush();
    expect(calls).toBe(2);
    expect(await queue.stats()).toMatchObject({ done: 1, failed: 0 });

    worker.registerHandler('facts', async () => {
      throw new Error('always');
    });
    await queue.enqueue([{ kind: 'facts', appName: 'a', userId: 'u', eventIds: ['e2'] }]);
    await worker.flush();
    const [failed] = await queue.list({ status: 'failed' });
    expect(failed).toMatchObject({ attempts: 3, lastError: 'always', eventIds: ['e2'] });
    expect(errors.length).toBe(4);
  });

  it('an expired claim is taken over by another worker; the first worker cannot complete it', async () => {
    const queue = new InMemoryMemoryJobQueue();
    await queue.enqueue([{ kind: 'index', appName: 'a', userId: 'u', eventIds: ['e1'] }]);
    const [mine] = await queue.claim({ workerId: 'w1', limit: 10, leaseMs: 1000, now: Date.now() });
    expect(await queue.claim({ workerId: 'w2', limit: 10, leaseMs: 1000 })).toEqual([]);
    const [taken] = await queue.claim({ workerId: 'w2', limit: 10, leaseMs: 1000, now: Date.now() + 5000 });
    expect(taken?.id).toBe(mine?.id);
    expect(taken?.attempts).toBe(2);
    await queue.complete([mine?.id ?? ''], 'w1');
    expect((await queue.stats()).running).toBe(1);
    await queue.complete([taken?.id ?? ''], 'w2');
    expect((await queue.stats()).done).toBe(1);
  });
});
