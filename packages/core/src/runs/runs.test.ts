import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type BaseTool,
  type Event,
  FunctionTool,
  InMemoryRunStore,
  InMemorySessionService,
  isAdkError,
  LlmAgent,
  Runner,
  type RunRecord,
  userContent,
} from '../index.js';
import { functionCallResponse, runStoreConformance, ScriptedModel } from '../testing/index.js';

describe('InMemoryRunStore', () => {
  for (const c of runStoreConformance(() => new InMemoryRunStore())) it(c.name, c.run);

  it('forgets the oldest finished runs beyond the limit, never an unfinished one', async () => {
    const store = new InMemoryRunStore({ maxFinishedRuns: 2 });
    const base = { appName: 'a', userId: 'u', sessionId: 's', background: false, createdAt: 1, input: {} };
    await store.createRun({ ...base, id: 'open', invocationId: 'e0', status: 'running' });
    for (const id of ['r1', 'r2', 'r3']) {
      await store.createRun({ ...base, id, invocationId: id, status: 'queued' });
      await store.updateRun({ appName: 'a', runId: id }, { status: 'succeeded' });
    }
    const { runs } = await store.listRuns({ appName: 'a' });
    expect(runs.map((r) => r.id)).toEqual(['r3', 'r2', 'open']);
  });
});

/** A tool that waits until its run is aborted (or `release` is called). */
function blockingTool() {
  let started!: () => void;
  const startedP = new Promise<void>((resolve) => {
    started = resolve;
  });
  let release!: () => void;
  const releaseP = new Promise<void>((resolve) => {
    release = resolve;
  });
  let aborted = false;
  const tool = new FunctionTool({
    name: 'wait',
    description: 'waits',
    parameters: z.object({}),
    execute: async (_args, ctx) => {
      started();
      await new Promise<void>((resolve) => {
        if (ctx.signal.aborted) resolve();
        ctx.signal.addEventListener('abort', () => {
          aborted = true;
          resolve();
        });
        void releaseP.then(resolve);
      });
      return { ok: true };
    },
  });
  return { tool, started: startedP, release, wasAborted: () => aborted };
}

function setup(script: ConstructorParameters<typeof ScriptedModel>[0], tools: BaseTool[] = []) {
  const sessionService = new InMemorySessionService();
  const model = new ScriptedModel(script);
  const agent = new LlmAgent({ name: 'assistant', model, tools });
  const runner = new Runner({ appName: 'app', agent, sessionService, autoCreateSession: true });
  return { runner, sessionService, model };
}

async function drain(iterable: AsyncGenerator<Event, RunRecord, undefined>) {
  const events: Event[] = [];
  let result = await iterable.next();
  while (!result.done) {
    events.push(result.value);
    result = await iterable.next();
  }
  return { events, record: result.value };
}

async function waitFor(check: () => Promise<boolean>, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('Runner runs', () => {
  it('records every run() invocation with its status and invocation id', async () => {
    const { runner } = setup(['Hi there.']);
    const events: Event[] = [];
    for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('hello') }))
      events.push(e);
    const { runs } = await runner.listRuns({ sessionId: 's' });
    expect(runs).toHaveLength(1);
    const run = runs[0] as RunRecord;
    expect(run.status).toBe('succeeded');
    expect(run.background).toBe(false);
    expect(run.invocationId).toBe(events[0]?.invocationId);
    expect(run.input.newMessage).toEqual(userContent('hello'));
    expect(run.startedAt).toBeGreaterThanOrEqual(run.createdAt);
    expect(run.endedAt).toBeGreaterThanOrEqual(run.startedAt ?? 0);
  });

  it('startRun answers with a queued record at once; runEvents follows it to the end', async () => {
    const { runner, sessionService } = setup(['Background answer.']);
    const record = await runner.startRun({ userId: 'u', sessionId: 's', newMessage: userContent('go') });
    expect(record.status).toBe('queued');
    expect(record.background).toBe(true);
    const { events, record: final } = await drain(runner.runEvents(record.id));
    expect(events.map((e) => e.author)).toEqual(['user', 'assistant']);
    expect(final.status).toBe('succeeded');
    const session = await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
    expect(session?.events.map((e) => e.id)).toEqual(events.map((e) => e.id));
  });

  it('a tail of a run executing here is served from memory: no store read, same events as the log', async () => {
    const blocker = blockingTool();
    const runStore = new InMemoryRunStore();
    const sessionService = new InMemorySessionService();
    const agent = new LlmAgent({
      name: 'assistant',
      model: new ScriptedModel([functionCallResponse('wait', {}), 'Done.']),
      tools: [blocker.tool],
    });
    const runner = new Runner({ appName: 'app', agent, sessionService, runStore, autoCreateSession: true });
    const record = await runner.startRun({ userId: 'u', sessionId: 's', newMessage: userContent('go') });
    await blocker.started;
    let reads = 0;
    const count = <T extends object>(target: T, method: keyof T) => {
      const original = (target[method] as (...args: unknown[]) => unknown).bind(target);
      (target as Record<keyof T, unknown>)[method] = (...args: unknown[]) => {
        reads++;
        return original(...args);
      };
    };
    count(runStore, 'getRun');
    count(sessionService, 'getSession');
    const head = runner.runEvents(record.id);
    const first = (await head.next()).value as Event;
    const tail = drain(runner.runEvents(record.id, { after: first.id }));
    const running = await runner.getRun(record.id);
    expect(running?.status).toBe('running');
    expect(reads).toBe(0);
    blocker.release();
    const { events, record: final } = await tail;
    expect(reads).toBe(0);
    expect(final.status).toBe('succeeded');
    expect(final.endedAt).toBeGreaterThanOrEqual(final.startedAt ?? Number.POSITIVE_INFINITY);
    await head.return(final);
    const session = await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
    expect([first.id, ...events.filter((e) => !e.partial).map((e) => e.id)]).toEqual(
      session?.events.map((e) => e.id),
    );
    expect(await runner.getRun(record.id)).toEqual(final);
  });

  it('runEvents after an event id resumes with no gap and no duplicate, live and after the end', async () => {
    const blocker = blockingTool();
    const { runner } = setup([functionCallResponse('wait', {}), 'Done.'], [blocker.tool]);
    const record = await runner.startRun({ userId: 'u', sessionId: 's', newMessage: userContent('go') });
    await blocker.started;
    const first = await runner.runEvents(record.id).next();
    const firstEvent = first.value as Event;
    expect(firstEvent.author).toBe('user');
    // A second tail from the first event on, attached while the run is live.
    const tail = drain(runner.runEvents(record.id, { after: firstEvent.id }));
    blocker.release();
    const { events, record: final } = await tail;
    expect(final.status).toBe('succeeded');
    const all = await drain(runner.runEvents(record.id));
    expect(all.events.slice(1).map((e) => e.id)).toEqual(events.filter((e) => !e.partial).map((e) => e.id));
    const afterEnd = await drain(runner.runEvents(record.id, { after: all.events[1]?.id as string }));
    expect(afterEnd.events.map((e) => e.id)).toEqual(all.events.slice(2).map((e) => e.id));
    await expect(drain(runner.runEvents(record.id, { after: 'nope' }))).rejects.toSatisfy((e) =>
      isAdkError(e, 'VALIDATION'),
    );
    await expect(drain(runner.runEvents('missing'))).rejects.toSatisfy((e) => isAdkError(e, 'NOT_FOUND'));
  });

  it('cancelRun stops a running background run through its signal; it ends cancelled with a final event', async () => {
    const blocker = blockingTool();
    const { runner } = setup([functionCallResponse('wait', {}), 'never'], [blocker.tool]);
    const record = await runner.startRun({ userId: 'u', sessionId: 's', newMessage: userContent('go') });
    await blocker.started;
    expect((await runner.getRun(record.id))?.status).toBe('running');
    const cancelled = await runner.cancelRun(record.id);
    expect(cancelled?.status).toBe('cancelled');
    expect(cancelled?.error?.code).toBe('CANCELLED');
    expect(blocker.wasAborted()).toBe(true);
    const { events } = await drain(runner.runEvents(record.id));
    expect(events.at(-1)?.errorCode).toBe('CANCELLED');
    expect(await runner.cancelRun('missing')).toBeUndefined();
  });

  it('a caller that stops reading run() ends the run as cancelled', async () => {
    const { runner } = setup(['One.']);
    for await (const _ of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('hi') })) break;
    const { runs } = await runner.listRuns();
    expect(runs[0]?.status).toBe('cancelled');
  });

  it('a run that ends waiting for a confirmation is paused; answering it is another run', async () => {
    const refund = new FunctionTool({
      name: 'refund',
      description: 'refunds an order',
      parameters: z.object({}),
      requireConfirmation: true,
      execute: () => ({ refunded: true }),
    });
    const { runner } = setup([functionCallResponse('refund', {}), 'Refunded.'], [refund]);
    const events: Event[] = [];
    for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('refund') }))
      events.push(e);
    expect((await runner.listRuns()).runs[0]?.status).toBe('paused');
    const ask = events.find((e) => e.longRunningToolIds?.length);
    const call = ask?.content?.parts.find((p) => p.functionCall)?.functionCall;
    expect(call?.name).toBe('adk_request_confirmation');
    const answer = {
      role: 'user' as const,
      parts: [
        {
          functionResponse: {
            id: call?.id as string,
            name: call?.name as string,
            response: { confirmed: true },
          },
        },
      ],
    };
    for await (const _ of runner.run({ userId: 'u', sessionId: 's', newMessage: answer }));
    const runs = (await runner.listRuns()).runs;
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'paused']);
  });

  it('a model failure ends the run failed with the error', async () => {
    const { runner } = setup([new Error('model down')]);
    for await (const _ of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('hi') }));
    const run = (await runner.listRuns()).runs[0];
    expect(run?.status).toBe('failed');
    expect(run?.error?.message).toContain('model down');
  });

  describe('double-texting', () => {
    it('reject: a second run on a busy session fails with a typed error; other sessions are free', async () => {
      const blocker = blockingTool();
      const { runner } = setup([functionCallResponse('wait', {}), 'a', 'b'], [blocker.tool]);
      const first = await runner.startRun({ userId: 'u', sessionId: 's', newMessage: userContent('one') });
      await blocker.started;
      await expect(
        runner.startRun({
          userId: 'u',
          sessionId: 's',
          newMessage: userContent('two'),
          multitaskStrategy: 'reject',
        }),
      ).rejects.toSatisfy((e) => isAdkError(e, 'CONCURRENT_INVOCATION'));
      const other = await runner.startRun({
        userId: 'u',
        sessionId: 'other',
        newMessage: userContent('x'),
        multitaskStrategy: 'reject',
      });
      blocker.release();
      expect((await drain(runner.runEvents(first.id))).record.status).toBe('succeeded');
      expect((await drain(runner.runEvents(other.id))).record.status).toBe('succeeded');
    });

    it('enqueue (default): runs on one session run one after another in the order they came', async () => {
      const seen: string[] = [];
      const sessionService = new InMemorySessionService();
      const model = new ScriptedModel({
        respond: async (request) => {
          const text = request.contents.at(-1)?.parts[0]?.text ?? '';
          seen.push(text);
          await new Promise((r) => setTimeout(r, 5));
          return `echo ${text}`;
        },
      });
      const runner = new Runner({
        appName: 'app',
        agent: new LlmAgent({ name: 'assistant', model }),
        sessionService,
        autoCreateSession: true,
      });
      const records = [];
      for (const text of ['m1', 'm2', 'm3', 'm4']) {
        records.push(await runner.startRun({ userId: 'u', sessionId: 's', newMessage: userContent(text) }));
      }
      for (const r of records) expect((await drain(runner.runEvents(r.id))).record.status).toBe('succeeded');
      expect(seen).toEqual(['m1', 'm2', 'm3', 'm4']);
      const session = await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
      expect(session?.events.map((e) => e.content?.parts[0]?.text)).toEqual([
        'm1',
        'echo m1',
        'm2',
        'echo m2',
        'm3',
        'echo m3',
        'm4',
        'echo m4',
      ]);
    });

    it('interrupt: the running run is cancelled, then the new one runs', async () => {
      const blocker = blockingTool();
      const { runner } = setup([functionCallResponse('wait', {}), 'second answer'], [blocker.tool]);
      const first = await runner.startRun({ userId: 'u', sessionId: 's', newMessage: userContent('one') });
      await blocker.started;
      const second = await runner.startRun({
        userId: 'u',
        sessionId: 's',
        newMessage: userContent('two'),
        multitaskStrategy: 'interrupt',
      });
      expect((await runner.getRun(first.id))?.status).toBe('cancelled');
      const { events, record } = await drain(runner.runEvents(second.id));
      expect(record.status).toBe('succeeded');
      expect(events.at(-1)?.content?.parts[0]?.text).toBe('second answer');
      await waitFor(async () => blocker.wasAborted());
    });
  });
});
