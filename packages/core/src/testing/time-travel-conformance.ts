import assert from 'node:assert/strict';
import { isAdkError } from '../errors/errors.js';
import { createEvent } from '../events/event.js';
import type { SessionService } from '../sessions/session.js';
import { forkSessionIn } from '../sessions/time-travel.js';
import { visibleEvents } from '../sessions/visible-events.js';
import type { ConformanceSuite } from './conformance.js';

/**
 * The store-level part of time travel (docs/architecture.md §5.5), run as part of
 * `sessionServiceConformance`: the initial state and `forkedFrom` are kept, rewind events round-trip,
 * and a fork copies a prefix of the log with the state of that point and leaves the source alone.
 */
export function timeTravelConformanceCases(
  app: (name: string) => string,
  withService: (body: (service: SessionService) => Promise<void>) => () => Promise<void>,
): ConformanceSuite {
  const ev = (invocationId: string, author: string, text: string, stateDelta: Record<string, unknown> = {}) =>
    createEvent({
      invocationId,
      author,
      content: { role: author === 'user' ? 'user' : 'model', parts: [{ text }] },
      actions: { stateDelta },
    });
  const json = (value: unknown) => JSON.parse(JSON.stringify(value));

  return [
    {
      name: 'time travel: the session-scoped state given at creation is kept as initialState',
      run: withService(async (s) => {
        const appName = app('tt-initial');
        await s.createSession({
          appName,
          userId: 'u1',
          sessionId: 's1',
          state: { topic: 'cats', 'user:lang': 'fr', 'app:theme': 'dark', 'temp:x': 1 },
        });
        const got = await s.getSession({ appName, userId: 'u1', sessionId: 's1' });
        assert.deepEqual(got?.initialState, { topic: 'cats' });
        assert.equal(got?.forkedFrom, undefined);
      }),
    },
    {
      name: 'time travel: an event with actions.rewindBeforeInvocationId round-trips and hides the span',
      run: withService(async (s) => {
        const appName = app('tt-rewind-event');
        const session = await s.createSession({ appName, userId: 'u1', sessionId: 's1' });
        await s.appendEvent(session, ev('inv-1', 'user', 'one'));
        await s.appendEvent(session, ev('inv-2', 'user', 'two'));
        await s.appendEvent(session, ev('inv-2', 'agent', 'answer two'));
        const rewind = createEvent({
          invocationId: 'inv-r',
          author: 'user',
          actions: { stateDelta: {}, artifactDelta: {}, rewindBeforeInvocationId: 'inv-2' },
        });
        await s.appendEvent(session, rewind);
        const got = await s.getSession({ appName, userId: 'u1', sessionId: 's1' });
        assert.deepEqual(got?.events.at(-1), json(rewind));
        assert.deepEqual(
          visibleEvents(got?.events ?? []).map((e) => e.invocationId),
          ['inv-1', 'inv-r'],
        );
      }),
    },
    {
      name: 'time travel: a fork holds the log up to the event, the state of that point and forkedFrom',
      run: withService(async (s) => {
        const appName = app('tt-fork');
        const source = await s.createSession({
          appName,
          userId: 'u1',
          sessionId: 'src',
          state: { topic: 'cats', 'user:lang': 'fr' },
        });
        const e1 = ev('inv-1', 'user', 'hi', { step: 1 });
        const e2 = ev('inv-1', 'agent', 'hello', { step: 2, 'user:seen': true });
        const e3 = ev('inv-2', 'user', 'more', { step: 3, topic: 'dogs', extra: 'x' });
        for (const e of [e1, e2, e3]) await s.appendEvent(source, e);
        const before = json((await s.getSession({ appName, userId: 'u1', sessionId: 'src' }))?.events);

        const fork = await forkSessionIn(s, {
          appName,
          userId: 'u1',
          sessionId: 'src',
          atEventId: e2.id,
          newSessionId: 'fork-1',
        });
        assert.equal(fork.id, 'fork-1');
        const got = await s.getSession({ appName, userId: 'u1', sessionId: 'fork-1' });
        assert.ok(got);
        assert.deepEqual(got.events, json([e1, e2]));
        assert.deepEqual(
          { topic: got.state.topic, step: got.state.step, extra: got.state.extra },
          { topic: 'cats', step: 2, extra: undefined },
        );
        // Shared scopes are shared, not copied: the fork reads their current values.
        assert.equal(got.state['user:lang'], 'fr');
        assert.equal(got.state['user:seen'], true);
        assert.deepEqual(got.initialState, { topic: 'cats' });
        if (s.forkSession) assert.deepEqual(got.forkedFrom, { sessionId: 'src', eventId: e2.id });

        const early = await forkSessionIn(s, {
          appName,
          userId: 'u1',
          sessionId: 'src',
          beforeInvocationId: 'inv-1',
          newSessionId: 'fork-0',
        });
        const got0 = await s.getSession({ appName, userId: 'u1', sessionId: early.id });
        assert.deepEqual(got0?.events, []);
        assert.equal(got0?.state.topic, 'cats');
        assert.equal(got0?.state.step, undefined);
        if (s.forkSession) assert.deepEqual(got0?.forkedFrom, { sessionId: 'src' });

        // Both go on independently; the source's events stay as they were, byte for byte.
        const forked = await s.getSession({ appName, userId: 'u1', sessionId: 'fork-1' });
        assert.ok(forked);
        await s.appendEvent(forked, ev('inv-f', 'user', 'forked path', { step: 'f' }));
        const src = await s.getSession({ appName, userId: 'u1', sessionId: 'src' });
        assert.ok(src);
        await s.appendEvent(src, ev('inv-3', 'user', 'source path', { step: 's' }));
        const srcAfter = await s.getSession({ appName, userId: 'u1', sessionId: 'src' });
        const forkAfter = await s.getSession({ appName, userId: 'u1', sessionId: 'fork-1' });
        assert.deepEqual(srcAfter?.events.slice(0, 3), before);
        assert.deepEqual(
          srcAfter?.events.map((e) => e.invocationId),
          ['inv-1', 'inv-1', 'inv-2', 'inv-3'],
        );
        assert.deepEqual(
          forkAfter?.events.map((e) => e.invocationId),
          ['inv-1', 'inv-1', 'inv-f'],
        );
        assert.equal(srcAfter?.state.step, 's');
        assert.equal(forkAfter?.state.step, 'f');
        if (s.forkSession) {
          const listed = await s.listSessions({ appName, userId: 'u1' });
          const row = listed.sessions.find((x) => x.id === 'fork-1');
          assert.deepEqual(row?.forkedFrom, { sessionId: 'src', eventId: e2.id });
        }
      }),
    },
    {
      name: 'time travel: fork errors are typed (unknown event or invocation, missing session, taken id)',
      run: withService(async (s) => {
        const appName = app('tt-fork-errors');
        const source = await s.createSession({ appName, userId: 'u1', sessionId: 'src' });
        await s.appendEvent(source, ev('inv-1', 'user', 'hi'));
        await s.createSession({ appName, userId: 'u1', sessionId: 'taken' });
        const base = { appName, userId: 'u1', sessionId: 'src' };
        await assert.rejects(forkSessionIn(s, { ...base, atEventId: 'nope' }), (e) =>
          isAdkError(e, 'NOT_FOUND'),
        );
        await assert.rejects(forkSessionIn(s, { ...base, beforeInvocationId: 'nope' }), (e) =>
          isAdkError(e, 'NOT_FOUND'),
        );
        await assert.rejects(
          forkSessionIn(s, { ...base, sessionId: 'missing', beforeInvocationId: 'inv-1' }),
          (e) => isAdkError(e, 'NOT_FOUND'),
        );
        await assert.rejects(
          forkSessionIn(s, { ...base, beforeInvocationId: 'inv-1', newSessionId: 'taken' }),
          (e) => isAdkError(e, 'ALREADY_EXISTS'),
        );
        const stillOne = await s.getSession({ appName, userId: 'u1', sessionId: 'taken' });
        assert.deepEqual(stillOne?.events, []);
      }),
    },
  ];
}
