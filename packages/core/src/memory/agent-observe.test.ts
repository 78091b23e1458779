import { describe, expect, it } from 'vitest';
import {
  checkObservations,
  contentText,
  createEvent,
  type Event,
  InMemoryMemoryJobQueue,
  InMemoryMemoryService,
  InMemorySessionService,
  LlmAgent,
  type LlmRequest,
  MemoryJobWorker,
  OBSERVATION_ERROR_METADATA_KEY,
  OBSERVATION_REFUSED,
  type ObservationFailure,
  type ObserveOptions,
  observationOf,
  observationsSettled,
  observeEvents,
  observeMemoryJobHandler,
  RECALL_TOOL_NAME,
  Runner,
  userContent,
} from '../index.js';
import { functionCallResponse, ScriptedModel } from '../testing/index.js';
import { LockingSessionService } from './__fixtures__/locking-session-service.js';

const OBS_LINE = /^\[(\d{4}-\d{2}-\d{2}) [\d:]+\] (\S+): (.*)$/;

function lastUserText(request: LlmRequest): string {
  return contentText(request.contents.at(-1));
}

/**
 * A scripted observer: one short dated bullet per user line of the transcript; as reflector, keeps
 * every third bullet (or answers what `reflect` says).
 */
function observerModel(reflect?: (log: string, attempt: number) => string) {
  let reflections = 0;
  const model = new ScriptedModel({
    respond: (request) => {
      const text = lastUserText(request);
      if (request.systemInstruction?.includes('reflector')) {
        reflections++;
        if (reflect) return reflect(text.split('\n\nYour previous answer')[0] ?? text, reflections);
        const bullets = text.split('\n').filter((l) => l.startsWith('- '));
        return bullets.filter((_, i) => i % 3 === 0).join('\n');
      }
      const transcript = text.split('Conversation to observe:\n')[1] ?? '';
      return transcript
        .split('\n')
        .map((l) => OBS_LINE.exec(l))
        .filter((m): m is RegExpExecArray => m !== null && m[2] === 'user')
        .map((m) => `- 🟡 ${m[1]} user: ${(m[3] ?? '').split(' ').slice(0, 4).join(' ')}`)
        .join('\n');
    },
  });
  return { model, reflections: () => reflections };
}

/** The agent's model: answers "noted <n>", and calls `recall` when told "recall <id>". */
function agentModel() {
  return new ScriptedModel({
    respond: (request, i) => {
      const last = request.contents.at(-1);
      if (last?.parts.some((p) => p.functionResponse)) return 'here is what was said';
      const text = contentText(last);
      const m = /^recall (\S+)$/.exec(text);
      if (m) return functionCallResponse(RECALL_TOOL_NAME, { id: m[1], limit: 500 });
      return `noted ${i}: ${text.slice(0, 30)}`;
    },
  });
}

function harness(observe: ObserveOptions, withJobs: boolean) {
  const sessionService = withJobs ? new LockingSessionService() : new InMemorySessionService();
  const jobs = withJobs ? new InMemoryMemoryJobQueue() : undefined;
  const memoryService = new InMemoryMemoryService(jobs ? { jobs } : {});
  const model = agentModel();
  const runner = new Runner({
    appName: 'app',
    agent: new LlmAgent({ name: 'a', model, memory: { observe } }),
    sessionService,
    memoryService,
    autoCreateSession: true,
  });
  const worker = jobs
    ? new MemoryJobWorker({ queue: jobs, memory: memoryService, backoffMs: () => 1 }).registerHandler(
        'observe',
        observeMemoryJobHandler(observe, { sessionService }),
      )
    : undefined;
  const send = async (text: string) => {
    const events: Event[] = [];
    for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent(text) }))
      events.push(e);
    if (worker) await worker.flush();
    else await observationsSettled();
    return events;
  };
  const session = async () => {
    const s = await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
    if (!s) throw new Error('no session');
    return s;
  };
  return { model, memoryService, send, session, worker };
}

const SENTENCES = [
  'the lighthouse keeper on Berlenga is called Ines',
  'my sloop Ariel needs a new jib before March',
  'we plan to sail from Lisbon to Porto in May',
  'the harbour fee in Cascais was 42 euros a night',
  'my sister Marta joins the trip on the second week',
  'the engine is a Volvo Penta with 1800 hours',
  'I prefer anchoring to marinas when the swell is low',
  'the insurance renewal is due on the 3rd of April',
  'our dinghy outboard is a two stroke Yamaha',
  'the chart plotter needs a firmware update',
  'we saw dolphins near Peniche last summer',
  'the mooring line chafed through in the storm',
];

describe('observations (memory.observe)', () => {
  it('observations replace history without losing a message: every original event is reachable through recall', async () => {
    const observer = observerModel();
    const { model, memoryService, send, session } = harness(
      { model: observer.model, observeAtTokens: 80, keepRecentTokens: 30, reflectAtTokens: 90, backoffMs: 0 },
      true,
    );
    for (const s of SENTENCES) await send(s);
    const s = await session();
    const compactions = s.events.filter((e) => observationOf(e));
    expect(compactions.some((e) => observationOf(e)?.kind === 'observation')).toBe(true);
    expect(compactions.some((e) => observationOf(e)?.kind === 'reflection')).toBe(true);
    // Written by the 'observe' job (the store has a run lock), not by the run.
    expect(compactions.every((e) => e.invocationId.startsWith('observe-'))).toBe(true);
    // The log stays whole: every message is still in the session.
    for (const text of SENTENCES) expect(s.events.some((e) => contentText(e.content) === text)).toBe(true);

    // The next request sends the observations and the recent tail, not the old messages.
    const before = model.requests.length;
    await send('what do you remember?');
    const request = model.requests[before] as LlmRequest;
    const sent = request.contents.map((c) => contentText(c)).join('\n');
    expect(sent).toContain('Summary of the earlier conversation:');
    expect(sent).toMatch(/\[(observation|reflection) \S+ · \d{4}-\d{2}-\d{2}\.\.\d{4}-\d{2}-\d{2}\]/);
    expect(sent).not.toContain(SENTENCES[0]);
    expect(sent).toContain('🟡');

    // Every block id in the log expands, through the recall tool, back to its source events.
    const latest = (await session()).events.filter((e) => observationOf(e)).at(-1) as Event;
    const log = latest.actions.compaction?.compactedContent.parts.map((p) => p.text).join('\n') ?? '';
    const ids = [...log.matchAll(/\[(?:observation|reflection) (\S+) ·/g)].map((m) => m[1] as string);
    expect(ids.length).toBeGreaterThan(0);
    const recalled = new Set<string>();
    for (const id of ids) {
      const events = await send(`recall ${id}`);
      const response = events.flatMap((e) => e.content?.parts ?? []).find((p) => p.functionResponse);
      const body = response?.functionResponse?.response as { status: string; events: { id: string }[] };
      expect(body.status).toBe('ok');
      for (const e of body.events) recalled.add(e.id);
    }
    const end = latest.actions.compaction?.endTimestamp ?? 0;
    const covered = (await session()).events.filter(
      (e) =>
        e.timestamp <= end &&
        !e.actions.compaction &&
        !e.author.startsWith('memory:') &&
        contentText(e.content),
    );
    expect(covered.length).toBeGreaterThan(SENTENCES.length);
    for (const e of covered) expect(recalled.has(e.id), `${e.author}: ${contentText(e.content)}`).toBe(true);
    // Events after the compaction are sent as they are.
    const after = (await session()).events.filter(
      (e) => e.timestamp > end && e.author === 'user' && contentText(e.content) === 'what do you remember?',
    );
    expect(after.length).toBe(1);

    // Observations are memories too, with their source event ids.
    const { memories } = await memoryService.searchMemory({
      appName: 'app',
      userId: 'u',
      query: 'user',
      kinds: ['observation'],
      limit: 50,
    });
    expect(memories.length).toBeGreaterThan(0);
    for (const m of memories) expect(m.eventIds?.length).toBeGreaterThan(0);
  });

  it('an observation whose events a rewind took away while the observer ran is dropped, memory included', async () => {
    const sessionService = new LockingSessionService();
    const jobs = new InMemoryMemoryJobQueue();
    const memoryService = new InMemoryMemoryService({ jobs });
    const invocations: string[] = [];
    let rewound = false;
    const inner = observerModel();
    const observer = new ScriptedModel({
      respond: async (request) => {
        if (!rewound) {
          rewound = true;
          await runner.rewind({
            userId: 'u',
            sessionId: 's',
            rewindBeforeInvocationId: invocations[0] ?? '',
          });
        }
        let text = '';
        for await (const r of inner.model.generate(request)) if (!r.partial) text = contentText(r.content);
        return text;
      },
    });
    const observe: ObserveOptions = {
      model: observer,
      observeAtTokens: 80,
      keepRecentTokens: 30,
      backoffMs: 0,
    };
    const runner: Runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({ name: 'a', model: agentModel(), memory: { observe } }),
      sessionService,
      memoryService,
      autoCreateSession: true,
    });
    const worker = new MemoryJobWorker({ queue: jobs, memory: memoryService }).registerHandler(
      'observe',
      observeMemoryJobHandler(observe, { sessionService }),
    );
    for (const text of SENTENCES.slice(0, 4)) {
      for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent(text) }))
        if (!invocations.includes(e.invocationId)) invocations.push(e.invocationId);
      if (!rewound) await worker.flush();
    }
    expect(rewound).toBe(true);
    const session = await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
    expect(session?.events.some((e) => e.actions.compaction)).toBe(false);
    const { memories } = await memoryService.searchMemory({
      appName: 'app',
      userId: 'u',
      query: 'user',
      kinds: ['observation'],
    });
    expect(memories).toEqual([]);
  });

  it('recall answers an unknown id with an error the model can read', async () => {
    const observer = observerModel();
    const { send } = harness({ model: observer.model, observeAtTokens: 10_000 }, true);
    const events = await send('recall nope');
    const response = events.flatMap((e) => e.content?.parts ?? []).find((p) => p.functionResponse);
    expect(response?.functionResponse?.response).toMatchObject({ status: 'error' });
  });

  it('without a job queue, a task after the turn observes; the next request commits it', async () => {
    const observer = observerModel();
    const { send, session, model, memoryService } = harness(
      { model: observer.model, observeAtTokens: 80, keepRecentTokens: 30, reflectAtTokens: 10_000 },
      false,
    );
    for (const s of SENTENCES.slice(0, 5)) await send(s);
    const s = await session();
    const observation = s.events.find((e) => observationOf(e));
    expect(observation).toBeDefined();
    expect(observation?.invocationId).not.toMatch(/^observe-/);
    const sent = (model.requests.at(-1) as LlmRequest).contents.map((c) => contentText(c)).join('\n');
    expect(sent).toContain('[observation ');
    expect(sent).not.toContain(SENTENCES[0]);
    const { memories } = await memoryService.searchMemory({
      appName: 'app',
      userId: 'u',
      query: 'user',
      kinds: ['observation'],
    });
    expect(memories.map((m) => m.id)).toContain(observation?.id);
    expect(memories.every((m) => m.sessionId === 's' && (m.eventIds?.length ?? 0) > 0)).toBe(true);
  });

  it('refuses degenerate output: empty, short, repeated lines, not smaller, or without dates', () => {
    const input =
      '[2026-11-28 10:00] user: my sloop Ariel needs a new jib before March, and the engine has 1800 hours';
    expect(checkObservations('', input)).toBe('empty');
    expect(checkObservations('- 🔴 ok', input)).toBe('too_short');
    expect(checkObservations('- 🔴 2026-11-28 jib\n- 🔴 2026-11-28 jib\n- 🔴 2026-11-28 jib', input)).toBe(
      'repeated_lines',
    );
    expect(checkObservations(`${input} and more`, input)).toBe('not_smaller');
    expect(checkObservations('- 🔴 the sloop needs a new jib', input)).toBe('no_dates');
    expect(checkObservations('- 🔴 2026-11-28 Ariel needs a new jib by March', input)).toBeUndefined();
  });

  it('degenerate observer output replaces nothing and records an error event', async () => {
    const calls: string[] = [];
    const observer = new ScriptedModel({
      respond: () => {
        calls.push('x');
        return calls.length % 2 ? '' : 'fine fine fine fine fine fine fine';
      },
    });
    const { send, session, model } = harness(
      { model: observer, observeAtTokens: 80, keepRecentTokens: 30, maxAttempts: 2, backoffMs: 0 },
      true,
    );
    for (const s of SENTENCES.slice(0, 4)) await send(s);
    const s = await session();
    expect(s.events.some((e) => e.actions.compaction)).toBe(false);
    const refused = s.events.filter((e) => e.errorCode === OBSERVATION_REFUSED);
    expect(refused.length).toBeGreaterThan(0);
    const failure = refused[0]?.customMetadata?.[OBSERVATION_ERROR_METADATA_KEY] as ObservationFailure;
    expect(failure).toMatchObject({ stage: 'observe', attempts: 2 });
    expect(['empty', 'no_dates']).toContain(failure.reason);
    // The model still gets the full history.
    const sent = (model.requests.at(-1) as LlmRequest).contents.map((c) => contentText(c)).join('\n');
    expect(sent).toContain(SENTENCES[0]);
  });

  it('the reflector backs off: bounded attempts with growing waits, then no retry until the back-off has passed', async () => {
    let turn = 0;
    const events: Event[] = [];
    const line = (text: string, author = 'user') =>
      createEvent({
        invocationId: `i${turn}`,
        author,
        timestamp: Date.UTC(2026, 0, 1 + turn++),
        content: { role: author === 'user' ? 'user' : 'model', parts: [{ text }] },
      });
    for (const s of SENTENCES) events.push(line(s), line(`noted: ${s}`, 'a'));
    const observer = observerModel((log) => log.split('\n').slice(1).join('\n')); // barely shorter
    const options: ObserveOptions = {
      model: observer.model,
      observeAtTokens: 100,
      keepRecentTokens: 20,
      reflectAtTokens: 60,
      maxAttempts: 3,
      backoffMs: 40,
    };
    const started = performance.now();
    const first = await observeEvents(options, { events, sessionId: 's', invocationId: 'x' });
    const took = performance.now() - started;
    expect(observer.reflections()).toBe(3);
    expect(took).toBeGreaterThanOrEqual(40 + 80 - 5);
    const [observation, refusal] = first.events;
    expect(observation && observationOf(observation)?.kind).toBe('observation');
    expect(refusal?.errorCode).toBe(OBSERVATION_REFUSED);
    expect(refusal?.customMetadata?.[OBSERVATION_ERROR_METADATA_KEY]).toMatchObject({
      stage: 'reflect',
      reason: 'over_threshold',
      attempts: 3,
    });
    // Nothing replaced by the failed reflection: the observation stands; the refusal is recorded.
    events.push(...first.events);
    for (const s of ['a new sentence about the anchor chain', 'and one about the bilge pump'])
      events.push(line(s));
    const refusedAt = refusal?.timestamp ?? 0;
    // Within the back-off: the next pass observes but does not try to reflect.
    const second = await observeEvents(
      { ...options, observeAtTokens: 10, keepRecentTokens: 0 },
      { events, sessionId: 's', invocationId: 'y', now: refusedAt + 10 },
    );
    expect(second.events.map((e) => observationOf(e)?.kind ?? e.errorCode)).toEqual(['observation']);
    expect(observer.reflections()).toBe(3);
    // After it: the reflector is tried again.
    events.push(...second.events);
    events.push(line('a third sentence about the windlass'));
    const third = await observeEvents(
      { ...options, observeAtTokens: 5, keepRecentTokens: 0, maxAttempts: 1 },
      { events, sessionId: 's', invocationId: 'z', now: refusedAt + 10_000 },
    );
    expect(observer.reflections()).toBe(4);
    expect(third.events.at(-1)?.errorCode).toBe(OBSERVATION_REFUSED);
  });
});
