import { describe, expect, it } from 'vitest';
import {
  type Event,
  InMemoryMemoryJobQueue,
  InMemoryMemoryService,
  InMemorySessionService,
  LlmAgent,
  type MemoryJob,
  Runner,
  userContent,
} from '../index.js';
import { ScriptedModel } from '../testing/index.js';

async function drain(iterable: AsyncIterable<Event>): Promise<void> {
  for await (const _ of iterable);
}

/** Polls `check` until it holds (no fixed sleeps: the machine may be loaded). */
async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function setup(memoryWorker?: ConstructorParameters<typeof Runner>[0]['memoryWorker']) {
  const jobs = new InMemoryMemoryJobQueue();
  const memory = new InMemoryMemoryService({ jobs });
  const runner = new Runner({
    appName: 'a',
    sessionService: new InMemorySessionService(),
    autoCreateSession: true,
    agent: new LlmAgent({ name: 'a', model: new ScriptedModel({ respond: () => 'noted' }) }),
    memoryService: memory,
    ...(memoryWorker !== undefined ? { memoryWorker } : {}),
  });
  const say = (text: string, sessionId = 's') =>
    drain(runner.run({ userId: 'u', sessionId, newMessage: userContent(text) }));
  const found = async (query: string) =>
    (await memory.searchMemory({ appName: 'a', userId: 'u', query })).memories.length > 0;
  return { jobs, memory, runner, say, found };
}

describe('the Runner runs its memory jobs', () => {
  it('indexes a committed turn by itself, without any worker started by hand; close() stops it', async () => {
    const { jobs, runner, say, found } = setup();
    await say('my pet is a tapir');
    await until(() => found('tapir'));
    expect(await jobs.stats()).toMatchObject({ pending: 0, running: 0, done: 1, failed: 0 });
    await runner.close();
    // Stopped: a turn's job now waits in the outbox.
    await say('it likes melons', 's2');
    expect((await jobs.stats()).pending).toBe(1);
    expect(await found('melons')).toBe(false);
    // flushMemory is the deterministic hook, started worker or not.
    await runner.flushMemory();
    expect(await found('melons')).toBe(true);
  });

  it('memoryWorker: false leaves the jobs to another host; flushMemory still runs them', async () => {
    const { jobs, runner, say, found } = setup(false);
    await say('my boat is a sloop');
    runner.startMemoryWorker();
    expect((await jobs.stats()).pending).toBe(1);
    expect(await found('sloop')).toBe(false);
    await runner.flushMemory({ userId: 'u' });
    expect(await found('sloop')).toBe(true);
    expect(await jobs.stats()).toMatchObject({ pending: 0, done: 1 });
    await runner.close();
  });

  it('runs the handlers it is given, and a failing handler never breaks the turn', async () => {
    const seen: MemoryJob[] = [];
    const errors: unknown[] = [];
    let fail = true;
    const { jobs, runner, say } = setup({
      handlers: {
        facts: async (batch) => {
          if (fail) {
            fail = false;
            throw new Error('extractor down');
          }
          seen.push(...batch);
        },
      },
      onError: (error) => errors.push(error),
    });
    jobs.turnKinds.add('facts');
    await say('I moved to Porto in May');
    await until(async () => seen.length === 1);
    expect(seen[0]?.kind).toBe('facts');
    expect(errors).toHaveLength(1);
    await until(async () => (await jobs.stats()).done === 2);
    expect((await jobs.list({ status: 'done' })).find((j) => j.kind === 'facts')?.attempts).toBe(2);
    await runner.close();
  });
});
