import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  applyMergePatch,
  type Event,
  InMemoryMemoryJobQueue,
  InMemoryMemoryService,
  InMemorySessionService,
  LlmAgent,
  MemoryJobWorker,
  type ProfileOptions,
  profileJobHandler,
  profileMemoryJobHandler,
  Runner,
  UPDATE_PROFILE_TOOL_NAME,
  userContent,
} from '../index.js';
import { functionCallResponse, ScriptedModel } from '../testing/index.js';
import { LockingSessionService } from './__fixtures__/locking-session-service.js';

const TEMPLATE = '# About the user\n\n## Name\n\n## Boat\n\n## Preferences\n';

/** A runner whose model answers each user message with the update_profile call the test scripts, then "ok". */
function setup(profile: ProfileOptions, sessionService = new InMemorySessionService()) {
  const updates: Record<string, unknown>[] = [];
  const model = new ScriptedModel({
    respond: (request) => {
      const last = request.contents.at(-1);
      if (last?.parts.some((p) => p.functionResponse)) return 'ok';
      const update = updates.shift();
      return update ? functionCallResponse(UPDATE_PROFILE_TOOL_NAME, update) : 'ok';
    },
  });
  const runner = new Runner({
    appName: 'app',
    agent: new LlmAgent({
      name: 'a',
      model,
      staticInstruction: 'You are a harbour assistant.',
      instruction: 'Today is {day?}.',
      memory: { profile },
    }),
    sessionService,
    autoCreateSession: true,
  });
  const send = async (sessionId: string, text: string, update?: Record<string, unknown>) => {
    if (update) updates.push(update);
    const events: Event[] = [];
    for await (const e of runner.run({ userId: 'u', sessionId, newMessage: userContent(text) }))
      events.push(e);
    return events;
  };
  const state = async (sessionId: string) =>
    (await sessionService.getSession({ appName: 'app', userId: 'u', sessionId }))?.state ?? {};
  return { runner, model, send, state, sessionService };
}

describe('profile (memory.profile)', () => {
  it('RFC 7386 merge-patch: null deletes, objects merge, the rest replaces', () => {
    expect(
      applyMergePatch({ a: 1, b: { c: 2, d: 3 }, e: [1] }, { a: null, b: { c: 5 }, e: [2], f: 'x' }),
    ).toEqual({
      b: { c: 5, d: 3 },
      e: [2],
      f: 'x',
    });
  });

  it('a zod profile is patched by update_profile (user scope), shown before the instruction, an ordinary state delta', async () => {
    const schema = z.object({
      name: z.string().optional(),
      city: z.string().optional(),
      boat: z.string().optional(),
    });
    const { send, state, model } = setup({ schema });
    const first = await send('s1', 'I am Ada from Lisbon', { patch: { name: 'Ada', city: 'Lisbon' } });
    const response = first.find((e) => e.content?.parts.some((p) => p.functionResponse));
    expect(response?.actions.stateDelta).toEqual({ 'user:profile': { name: 'Ada', city: 'Lisbon' } });
    await send('s1', 'I moved my sloop out of Lisbon', { patch: { city: null, boat: 'sloop' } });
    expect((await state('s1'))['user:profile']).toEqual({ name: 'Ada', boat: 'sloop' });

    // Another session of the user sees it; the profile sits right after the static instruction,
    // and the templated (per-turn) instruction is not in the system instruction at all.
    await send('s2', 'hello');
    const system = model.requests.at(-1)?.systemInstruction ?? '';
    expect(system).toContain('"boat": "sloop"');
    expect(system.startsWith('You are a harbour assistant.\n\n<user_profile>')).toBe(true);
    expect(system).not.toContain('Today is');

    // A patch that breaks the schema is refused: the tool answers an error, nothing is written.
    const bad = await send('s2', 'my name is 42', { patch: { name: 42 } });
    const refusal = bad.find((e) => e.content?.parts.some((p) => p.functionResponse));
    expect(refusal?.content?.parts[0]?.functionResponse?.response).toMatchObject({ status: 'error' });
    expect(refusal?.actions.stateDelta).toEqual({});
    expect((await state('s2'))['user:profile']).toEqual({ name: 'Ada', boat: 'sloop' });
  });

  it('a Markdown profile (session scope) is updated one section at a time and follows rewind and fork', async () => {
    const { runner, send, state } = setup({ template: TEMPLATE, scope: 'session' });
    await send('s', 'I am Ada', { section: 'Name', content: 'Ada' });
    const second = await send('s', 'my boat is a sloop', { section: 'Boat', content: 'A sloop called Wren' });
    const afterTwo = (await state('s')).profile as string;
    expect(afterTwo).toBe(
      '# About the user\n\n## Name\nAda\n\n## Boat\nA sloop called Wren\n\n## Preferences\n',
    );

    // Unknown section: refused, nothing written.
    const bad = await send('s', 'x', { section: 'Secrets', content: 'hunter2' });
    expect(bad.find((e) => e.content?.parts.some((p) => p.functionResponse))?.actions.stateDelta).toEqual({});

    // Fork before the second update: the fork has only the first.
    const fork = await runner.forkSession({
      userId: 'u',
      sessionId: 's',
      beforeInvocationId: second[0]?.invocationId ?? '',
    });
    expect(fork.state.profile).toBe('# About the user\n\n## Name\nAda\n\n## Boat\n\n## Preferences\n');
    // Rewind before the second update: the session goes back to the first.
    await runner.rewind({
      userId: 'u',
      sessionId: 's',
      rewindBeforeInvocationId: second[0]?.invocationId ?? '',
    });
    expect((await state('s')).profile).toBe(
      '# About the user\n\n## Name\nAda\n\n## Boat\n\n## Preferences\n',
    );
  });

  it('through the memory job worker: the Runner enqueues the turn, flush updates the profile', async () => {
    const sessionService = new InMemorySessionService();
    const jobs = new InMemoryMemoryJobQueue();
    jobs.turnKinds.add('profile');
    const memory = new InMemoryMemoryService({ jobs });
    const profile: ProfileOptions = { update: 'background' };
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({
        name: 'a',
        model: new ScriptedModel({ respond: () => 'noted' }),
        memory: { profile },
      }),
      sessionService,
      memoryService: memory,
      autoCreateSession: true,
    });
    for await (const _ of runner.run({
      userId: 'u',
      sessionId: 's',
      newMessage: userContent('call me Ada'),
    }));
    const worker = new MemoryJobWorker({ queue: jobs, memory }).registerHandler(
      'profile',
      profileMemoryJobHandler(profile, {
        model: new ScriptedModel({ respond: () => '{"name":"Ada"}' }),
        sessionService,
      }),
    );
    await worker.flush();
    const session = await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
    expect(session?.state['user:profile']).toEqual({ name: 'Ada' });
  });

  it('the background profile job: one model call, a merge-patch appended as a state-delta event, idempotent by event id', async () => {
    const sessionService = new InMemorySessionService();
    const profile: ProfileOptions = { update: 'background' };
    const { send, state, runner } = setup(profile, sessionService);
    expect(runner.agent instanceof LlmAgent && runner.agent.tools.length).toBe(0);
    const events = await send('s', 'I keep a sloop in Porto');
    const extractor = new ScriptedModel({
      script: ['```json\n{"boat":"sloop","harbour":"Porto"}\n```', '{}'],
    });
    const handler = profileJobHandler(profile, extractor);
    const job = {
      kind: 'profile' as const,
      appName: 'app',
      userId: 'u',
      sessionId: 's',
      eventId: events.at(-1)?.id ?? '',
    };
    await handler(job, { sessionService });
    await handler(job, { sessionService });
    expect(extractor.requests).toHaveLength(1);
    expect(extractor.requests[0]?.contents[0]?.parts[0]?.text).toContain('I keep a sloop in Porto');
    expect((await state('s'))['user:profile']).toEqual({ boat: 'sloop', harbour: 'Porto' });
    const written = (
      await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' })
    )?.events.filter((e) => e.author === 'memory:profile');
    expect(written).toHaveLength(1);
  });
  it('the background profile job writes under the session run lock, onto the profile as it is then', async () => {
    const sessionService = new LockingSessionService();
    const profile: ProfileOptions = { update: 'background' };
    const { send, state } = setup(profile, sessionService);
    const events = await send('s', 'I keep a sloop in Porto');
    const key = { appName: 'app', userId: 'u', sessionId: 's' };
    // A run holds the session while the extractor answers.
    const run = await sessionService.acquireRunLock(key);
    let answered = () => {};
    const answering = new Promise<void>((resolve) => {
      answered = resolve;
    });
    const extractor = new ScriptedModel({
      respond: () => {
        answered();
        return '{"boat":"sloop"}';
      },
    });
    const job = profileJobHandler(profile, extractor)(
      { kind: 'profile', appName: 'app', userId: 'u', sessionId: 's', eventId: events.at(-1)?.id ?? '' },
      { sessionService },
    );
    await answering;
    // Meanwhile the run changes the profile; the job has not written.
    const session = await sessionService.getSession(key);
    if (!session) throw new Error('no session');
    await sessionService.appendEvent(session, {
      ...events[0],
      id: 'run-write',
      author: 'assistant',
      content: undefined,
      actions: { stateDelta: { 'user:profile': { name: 'Ana' } } },
    } as Event);
    expect((await state('s'))['user:profile']).toEqual({ name: 'Ana' });
    await run.release();
    await job;
    // The patch landed after the run, on top of what the run wrote.
    expect((await state('s'))['user:profile']).toEqual({ name: 'Ana', boat: 'sloop' });
    const authors = (await sessionService.getSession(key))?.events.map((e) => e.author);
    expect(authors?.slice(-2)).toEqual(['assistant', 'memory:profile']);
  });
});
