import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Event,
  FunctionTool,
  INTERRUPTED_CALL_ERROR,
  InMemoryRunStore,
  InMemorySessionService,
  LlmAgent,
  type LlmRequest,
  Runner,
  type RunRecord,
  userContent,
} from '../index.js';
import { functionCallResponse, ScriptedModel } from '../testing/index.js';

/**
 * Two Runners on one session store and one run store stand for two processes; "killing" the first
 * is leaving its run stuck in a tool that never returns and recording no heartbeat.
 */
function world(idempotent: boolean) {
  const sessionService = new InMemorySessionService();
  const runStore = new InMemoryRunStore();
  const requests: LlmRequest[] = [];
  let toolCalls = 0;
  let crashed = true;
  const model = new ScriptedModel({
    respond: (request) => {
      requests.push(request);
      const last = request.contents.at(-1)?.parts[0];
      if (last?.functionResponse) return `after the tool: ${JSON.stringify(last.functionResponse.response)}`;
      return functionCallResponse('charge', { amount: 5 });
    },
  });
  const charge = new FunctionTool({
    name: 'charge',
    description: 'charges a card',
    parameters: z.object({ amount: z.number() }),
    idempotent,
    execute: ({ amount }) => {
      toolCalls++;
      // The first process dies in here: the call never answers.
      if (crashed) return new Promise(() => {});
      return { charged: amount };
    },
  });
  const runner = (instanceId: string) =>
    new Runner({
      appName: 'shop',
      agent: new LlmAgent({ name: 'cashier', model, tools: [charge] }),
      sessionService,
      runStore,
      autoCreateSession: true,
      instanceId,
    });
  return {
    runner,
    sessionService,
    requests,
    toolCalls: () => toolCalls,
    recoverTool: () => {
      crashed = false;
    },
    session: () => sessionService.getSession({ appName: 'shop', userId: 'u', sessionId: 's' }),
  };
}

async function drain(events: AsyncGenerator<Event, RunRecord, undefined>) {
  let step = await events.next();
  while (!step.done) step = await events.next();
  return step.value;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
}

describe('crash recovery from the event log', () => {
  it('a non-idempotent call left unanswered is answered as interrupted, never re-run; finished steps are not repeated', async () => {
    const w = world(false);
    const first = w.runner('process-a');
    const run = await first.startRun({ userId: 'u', sessionId: 's', newMessage: userContent('pay 5') });
    await until(() => w.toolCalls() === 1);
    w.recoverTool();

    const second = w.runner('process-b');
    const taken = await second.recoverRuns();
    expect(taken.map((r) => r.id)).toEqual([run.id]);
    const final = await drain(second.runEvents(run.id));
    expect(final.status).toBe('succeeded');
    expect(final.owner).toBe('process-b');
    expect(w.toolCalls()).toBe(1);
    expect(w.requests).toHaveLength(2);
    const session = await w.session();
    const events = session?.events ?? [];
    expect(events.every((e) => e.invocationId === run.invocationId)).toBe(true);
    expect(events.filter((e) => e.author === 'user' && e.content?.parts[0]?.text)).toHaveLength(1);
    const response = events.find((e) => e.content?.parts[0]?.functionResponse)?.content?.parts[0]
      ?.functionResponse;
    expect(response?.response).toEqual({ error: INTERRUPTED_CALL_ERROR });
    expect(events.at(-1)?.content?.parts[0]?.text).toContain(INTERRUPTED_CALL_ERROR.slice(0, 20));
  });

  it('an idempotent call left unanswered runs again', async () => {
    const w = world(true);
    const first = w.runner('process-a');
    const run = await first.startRun({ userId: 'u', sessionId: 's', newMessage: userContent('pay 5') });
    await until(() => w.toolCalls() === 1);
    w.recoverTool();
    const second = w.runner('process-b');
    await second.recoverRuns();
    const final = await drain(second.runEvents(run.id));
    expect(final.status).toBe('succeeded');
    expect(w.toolCalls()).toBe(2);
    expect(w.requests).toHaveLength(2);
    const session = await w.session();
    expect(session?.events.at(-1)?.content?.parts[0]?.text).toBe('after the tool: {"charged":5}');
  });

  it('a run that had answered before its process stopped is finished without running anything', async () => {
    const sessionService = new InMemorySessionService();
    const runStore = new InMemoryRunStore();
    let calls = 0;
    const model = new ScriptedModel({
      respond: () => {
        calls++;
        return 'done';
      },
    });
    const make = (id: string) =>
      new Runner({
        appName: 'a',
        agent: new LlmAgent({ name: 'agent', model }),
        sessionService,
        runStore,
        autoCreateSession: true,
        instanceId: id,
      });
    const first = make('p1');
    for await (const _ of first.run({ userId: 'u', sessionId: 's', newMessage: userContent('hi') }));
    const [record] = (await first.listRuns()).runs;
    // The process died after its last event, before it could finish the record.
    await runStore.createRun({ ...(record as RunRecord), id: 'orphan', status: 'running' });
    const taken = await make('p2').recoverRuns();
    expect(taken.map((r) => r.id)).toEqual(['orphan']);
    expect((await drain(make('p3').runEvents('orphan'))).status).toBe('succeeded');
    expect(calls).toBe(1);
    expect(
      (await sessionService.getSession({ appName: 'a', userId: 'u', sessionId: 's' }))?.events,
    ).toHaveLength(2);
  });

  it('a run whose session went on without it ends failed, and nothing is added to the session', async () => {
    const w = world(false);
    const first = w.runner('process-a');
    const run = await first.startRun({ userId: 'u', sessionId: 's', newMessage: userContent('pay 5') });
    await until(() => w.toolCalls() === 1);
    w.recoverTool();
    // Another process answers a later message on the session meanwhile (the dead one's lock is gone).
    const other = w.runner('process-b');
    for await (const _ of other.run({ userId: 'u', sessionId: 's', newMessage: userContent('hello?') }));
    const before = (await w.session())?.events.map((e) => e.id);
    const taken = await w.runner('process-c').recoverRuns();
    expect(taken.map((r) => r.id)).toEqual([run.id]);
    let record = await other.getRun(run.id);
    for (let i = 0; i < 200 && record?.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 5));
      record = await other.getRun(run.id);
    }
    expect(record?.status).toBe('failed');
    expect(record?.error?.code).toBe('INTERRUPTED');
    expect((await w.session())?.events.map((e) => e.id)).toEqual(before);
  });

  it('a run whose session is taken by a later run between its claim and its start ends failed too', async () => {
    const w = world(false);
    const run = await w
      .runner('process-a')
      .startRun({ userId: 'u', sessionId: 's', newMessage: userContent('pay 5') });
    await until(() => w.toolCalls() === 1);
    w.recoverTool();
    const taker = w.runner('process-b');
    // Right after the takeover's first look at the session (nothing later there yet), a later
    // message starts on the same runner and gets the session first.
    const getSession = w.sessionService.getSession.bind(w.sessionService);
    let later: Promise<void> | undefined;
    let armed = true;
    w.sessionService.getSession = async (params) => {
      const session = await getSession(params);
      if (armed) {
        armed = false;
        const events = taker.run({ userId: 'u', sessionId: 's', newMessage: userContent('hello?') });
        await events.next();
        later = (async () => {
          for await (const _ of events);
        })();
      }
      return session;
    };
    const taken = await taker.recoverRuns();
    expect(taken.map((r) => r.id)).toEqual([run.id]);
    let record = await taker.getRun(run.id);
    for (let i = 0; i < 200 && record?.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 5));
      record = await taker.getRun(run.id);
    }
    await later;
    expect(record?.status).toBe('failed');
    expect(record?.error?.code).toBe('INTERRUPTED');
    const texts = (await w.session())?.events.map(
      (e) => e.content?.parts[0]?.text ?? e.content?.parts[0]?.functionCall?.name,
    );
    // The dead run's message and call, then the later turn; nothing of the dead run after it.
    expect(texts?.slice(0, 3)).toEqual(['pay 5', 'charge', 'hello?']);
    expect(w.toolCalls()).toBe(2);
  });

  it("execution 'queue': startRun only records the run, and a worker executes it", async () => {
    const sessionService = new InMemorySessionService();
    const runStore = new InMemoryRunStore();
    const agent = new LlmAgent({ name: 'agent', model: new ScriptedModel(['from the worker']) });
    const api = new Runner({
      appName: 'a',
      agent,
      sessionService,
      runStore,
      autoCreateSession: true,
      execution: 'queue',
    });
    const record = await api.startRun({ userId: 'u', sessionId: 's', newMessage: userContent('hi') });
    expect(record.owner).toBeUndefined();
    await new Promise((r) => setTimeout(r, 20));
    expect((await api.getRun(record.id))?.status).toBe('queued');
    const worker = new Runner({
      appName: 'a',
      agent,
      sessionService,
      runStore,
      autoCreateSession: true,
      instanceId: 'w1',
    });
    const handle = worker.startWorker({ pollIntervalMs: 10 });
    try {
      const final = await drain(worker.runEvents(record.id));
      expect(final.owner).toBe('w1');
      expect(final.status).toBe('succeeded');
      const session = await sessionService.getSession({ appName: 'a', userId: 'u', sessionId: 's' });
      expect(session?.events.map((e) => e.content?.parts[0]?.text)).toEqual(['hi', 'from the worker']);
    } finally {
      handle.stop();
    }
  });
});
