import assert from 'node:assert/strict';
import { isAdkError } from '../errors/errors.js';
import { createEvent, type Event } from '../events/event.js';
import type { Session, SessionService } from '../sessions/session.js';
import type { ConformanceSuite } from './conformance.js';
import { timeTravelConformanceCases } from './time-travel-conformance.js';

export interface SessionConformanceOptions {
  /** Prefix for app names, so suites can share one database. */
  appPrefix?: string;
  /** Called after each case with the service it used (close pools, drop data). */
  teardown?: (service: SessionService) => Promise<void> | void;
}

let counter = 0;

/** The behaviour every SessionService must have (docs/architecture.md §3.4). */
export function sessionServiceConformance(
  factory: () => SessionService | Promise<SessionService>,
  options: SessionConformanceOptions = {},
): ConformanceSuite {
  const app = (name: string) => `${options.appPrefix ?? 'conf'}-${name}-${process.pid}-${++counter}`;
  const withService = (body: (service: SessionService) => Promise<void>) => async (): Promise<void> => {
    const service = await factory();
    try {
      await body(service);
    } finally {
      await options.teardown?.(service);
    }
  };
  const event = (init: Partial<Event> & { author?: string }, actions: Partial<Event['actions']> = {}) =>
    createEvent({ invocationId: 'inv-1', author: 'agent', ...init, actions });

  return [
    {
      name: 'creates a session with a given id and with a generated id',
      run: withService(async (s) => {
        const appName = app('create');
        const a = await s.createSession({ appName, userId: 'u1', sessionId: 's-given' });
        assert.equal(a.id, 's-given');
        assert.equal(a.appName, appName);
        assert.equal(a.userId, 'u1');
        assert.deepEqual(a.events, []);
        assert.deepEqual(a.state, {});
        const b = await s.createSession({ appName, userId: 'u1' });
        assert.ok(b.id.length > 0);
        assert.notEqual(b.id, a.id);
        const got = await s.getSession({ appName, userId: 'u1', sessionId: b.id });
        assert.equal(got?.id, b.id);
      }),
    },
    {
      name: 'a duplicate session id is a typed ALREADY_EXISTS error',
      run: withService(async (s) => {
        const appName = app('dup');
        await s.createSession({ appName, userId: 'u1', sessionId: 'x' });
        await assert.rejects(s.createSession({ appName, userId: 'u1', sessionId: 'x' }), (e) =>
          isAdkError(e, 'ALREADY_EXISTS'),
        );
        // the same id for another user or app is a different session
        await s.createSession({ appName, userId: 'u2', sessionId: 'x' });
      }),
    },
    {
      name: 'getSession of an unknown session returns undefined',
      run: withService(async (s) => {
        assert.equal(
          await s.getSession({ appName: app('missing'), userId: 'u', sessionId: 'nope' }),
          undefined,
        );
      }),
    },
    {
      name: 'initial state is routed: app: shared by the app, user: by the user, the rest by the session',
      run: withService(async (s) => {
        const appName = app('route');
        const a = await s.createSession({
          appName,
          userId: 'u1',
          state: { 'app:theme': 'dark', 'user:lang': 'fr', draft: 1, 'temp:scratch': true },
        });
        assert.deepEqual(a.state, { 'app:theme': 'dark', 'user:lang': 'fr', draft: 1 });
        const b = await s.createSession({ appName, userId: 'u1' });
        assert.deepEqual(b.state, { 'app:theme': 'dark', 'user:lang': 'fr' });
        const c = await s.createSession({ appName, userId: 'u2' });
        assert.deepEqual(c.state, { 'app:theme': 'dark' });
        const other = await s.createSession({ appName: app('route-other'), userId: 'u1' });
        assert.deepEqual(other.state, {});
      }),
    },
    {
      name: 'appendEvent routes deltas by prefix, never stores temp: keys, and updates the copy in place',
      run: withService(async (s) => {
        const appName = app('append');
        const session = await s.createSession({ appName, userId: 'u1' });
        const before = session.lastUpdateTime;
        const e = event({}, { stateDelta: { 'app:count': 1, 'user:name': 'Ada', step: 2, 'temp:t': 'x' } });
        const returned = await s.appendEvent(session, e);
        assert.equal(returned.id, e.id);
        assert.equal(session.events.length, 1);
        assert.equal(session.state.step, 2);
        assert.equal(session.state['app:count'], 1);
        assert.equal(session.state['temp:t'], undefined);
        assert.ok(session.lastUpdateTime > before, 'lastUpdateTime increases');
        const got = await s.getSession({ appName, userId: 'u1', sessionId: session.id });
        assert.deepEqual(got?.state, { 'app:count': 1, 'user:name': 'Ada', step: 2 });
        assert.equal(got?.lastUpdateTime, session.lastUpdateTime);
        assert.deepEqual(got?.events[0]?.actions.stateDelta, { 'app:count': 1, 'user:name': 'Ada', step: 2 });
        const sibling = await s.createSession({ appName, userId: 'u1' });
        assert.deepEqual(sibling.state, { 'app:count': 1, 'user:name': 'Ada' });
      }),
    },
    {
      name: 'partial events are not stored',
      run: withService(async (s) => {
        const appName = app('partial');
        const session = await s.createSession({ appName, userId: 'u1' });
        await s.appendEvent(
          session,
          event({ partial: true, content: { role: 'model', parts: [{ text: 'chu' }] } }),
        );
        await s.appendEvent(session, event({ content: { role: 'model', parts: [{ text: 'chunk' }] } }));
        const got = await s.getSession({ appName, userId: 'u1', sessionId: session.id });
        assert.equal(got?.events.length, 1);
        assert.equal(got?.events[0]?.content?.parts[0]?.text, 'chunk');
      }),
    },
    {
      name: 'events come back in order; numRecentEvents and after (strict) filter them',
      run: withService(async (s) => {
        const appName = app('filter');
        let session = await s.createSession({ appName, userId: 'u1' });
        const base = Date.now();
        for (let i = 0; i < 6; i++) {
          await s.appendEvent(
            session,
            event({ timestamp: base + i * 10, content: { role: 'user', parts: [{ text: `m${i}` }] } }),
          );
        }
        const texts = (x: Session | undefined) => x?.events.map((e) => e.content?.parts[0]?.text);
        session = (await s.getSession({ appName, userId: 'u1', sessionId: session.id }))!;
        assert.deepEqual(texts(session), ['m0', 'm1', 'm2', 'm3', 'm4', 'm5']);
        const key = { appName, userId: 'u1', sessionId: session.id };
        assert.deepEqual(texts(await s.getSession({ ...key, numRecentEvents: 2 })), ['m4', 'm5']);
        assert.deepEqual(texts(await s.getSession({ ...key, numRecentEvents: 0 })), []);
        assert.deepEqual(texts(await s.getSession({ ...key, numRecentEvents: 100 })), [
          'm0',
          'm1',
          'm2',
          'm3',
          'm4',
          'm5',
        ]);
        assert.deepEqual(texts(await s.getSession({ ...key, after: base + 30 })), ['m4', 'm5']);
        assert.deepEqual(texts(await s.getSession({ ...key, after: base + 5, numRecentEvents: 3 })), [
          'm3',
          'm4',
          'm5',
        ]);
        assert.deepEqual(texts(await s.getSession({ ...key, after: base + 50 })), []);
      }),
    },
    {
      name: 'listSessions is per user, newest first, paginated and without events',
      run: withService(async (s) => {
        const appName = app('list');
        const ids: string[] = [];
        for (let i = 0; i < 5; i++) {
          const session = await s.createSession({ appName, userId: 'u1', sessionId: `s${i}` });
          await s.appendEvent(session, event({ content: { role: 'user', parts: [{ text: 'hi' }] } }));
          ids.push(session.id);
        }
        await s.createSession({ appName, userId: 'u2', sessionId: 'other' });
        const first = await s.listSessions({ appName, userId: 'u1', pageSize: 2 });
        assert.equal(first.sessions.length, 2);
        assert.ok(first.nextPageToken);
        const seen = [...first.sessions];
        let token: string | undefined = first.nextPageToken;
        while (token) {
          const page = await s.listSessions({ appName, userId: 'u1', pageSize: 2, pageToken: token });
          seen.push(...page.sessions);
          token = page.nextPageToken;
        }
        assert.deepEqual(
          seen.map((x) => x.id),
          [...ids].reverse(),
        );
        for (const x of seen) assert.deepEqual(x.events, []);
        const all = await s.listSessions({ appName });
        assert.equal(all.sessions.length, 6);
        assert.equal(all.nextPageToken, undefined);
        assert.deepEqual((await s.listSessions({ appName: app('empty') })).sessions, []);
      }),
    },
    {
      name: 'deleteSession removes the session and its events and is idempotent',
      run: withService(async (s) => {
        const appName = app('delete');
        const session = await s.createSession({ appName, userId: 'u1', sessionId: 'd' });
        await s.appendEvent(session, event({ content: { role: 'user', parts: [{ text: 'x' }] } }));
        const key = { appName, userId: 'u1', sessionId: 'd' };
        await s.deleteSession(key);
        assert.equal(await s.getSession(key), undefined);
        await s.deleteSession(key);
        const again = await s.createSession({ appName, userId: 'u1', sessionId: 'd' });
        assert.deepEqual(again.events, []);
        assert.deepEqual((await s.getSession(key))?.events, []);
      }),
    },
    {
      name: 'appending to an unknown session is a typed NOT_FOUND error',
      run: withService(async (s) => {
        const ghost: Session = {
          id: 'ghost',
          appName: app('ghost'),
          userId: 'u',
          state: {},
          events: [],
          lastUpdateTime: 0,
        };
        await assert.rejects(s.appendEvent(ghost, event({})), (e) => isAdkError(e, 'NOT_FOUND'));
      }),
    },
    {
      name: 'an append from a stale copy is a typed STALE_SESSION error and stores nothing',
      run: withService(async (s) => {
        const appName = app('stale');
        const a = await s.createSession({ appName, userId: 'u1', sessionId: 'st' });
        const b = (await s.getSession({ appName, userId: 'u1', sessionId: 'st' }))!;
        await s.appendEvent(a, event({ content: { role: 'user', parts: [{ text: 'first' }] } }));
        await assert.rejects(
          s.appendEvent(b, event({ content: { role: 'user', parts: [{ text: 'second' }] } })),
          (e) => isAdkError(e, 'STALE_SESSION'),
        );
        const fresh = (await s.getSession({ appName, userId: 'u1', sessionId: 'st' }))!;
        assert.equal(fresh.events.length, 1);
        await s.appendEvent(fresh, event({ content: { role: 'user', parts: [{ text: 'third' }] } }));
        assert.equal((await s.getSession({ appName, userId: 'u1', sessionId: 'st' }))?.events.length, 2);
      }),
    },
    {
      name: 'events round-trip exactly, including binary data, metadata and every action',
      run: withService(async (s) => {
        const appName = app('roundtrip');
        const session = await s.createSession({ appName, userId: 'u1' });
        const e = createEvent({
          invocationId: 'inv-rt',
          author: 'helper',
          branch: 'root.helper',
          timestamp: 1_700_000_000_123.5,
          content: {
            role: 'model',
            parts: [
              { text: 'thinking…', thought: true, thoughtSignature: 'c2lnbmF0dXJl' },
              { text: 'héllo ✓ 世界' },
              { inlineData: { mimeType: 'image/png', data: Buffer.from([0, 1, 2, 255]).toString('base64') } },
              { fileData: { mimeType: 'application/pdf', fileUri: 'gs://bucket/a.pdf' } },
              {
                functionCall: {
                  id: 'call-1',
                  name: 'lookup',
                  args: { q: 'x', nested: { list: [1, null, true] } },
                },
              },
              { functionResponse: { id: 'call-0', name: 'prev', response: { ok: true } } },
              // A live streaming tool's chunk.
              {
                functionResponse: {
                  id: 'call-2',
                  name: 'watch',
                  response: { n: 1 },
                  willContinue: true,
                  scheduling: 'WHEN_IDLE',
                },
              },
              { executableCode: { language: 'PYTHON', code: 'print(1)' } },
              { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1\n' } },
            ],
          },
          turnComplete: true,
          interrupted: false,
          finishReason: 'MAX_TOKENS',
          errorCode: 'MODEL',
          errorMessage: 'x'.repeat(1000),
          usageMetadata: {
            promptTokenCount: 10,
            candidatesTokenCount: 5,
            totalTokenCount: 15,
            thoughtsTokenCount: 2,
            cachedContentTokenCount: 1,
          },
          groundingMetadata: { sources: ['a'] },
          citationMetadata: { citations: [{ startIndex: 0 }] },
          customMetadata: { k: 'v', liveSessionResumptionHandle: 'handle-1' },
          longRunningToolIds: ['call-1'],
          actions: {
            stateDelta: { a: { deep: [1, 2] } },
            artifactDelta: { 'report.txt': 0 },
            transferToAgent: 'other',
            escalate: true,
            skipSummarization: true,
            requestedToolConfirmations: { 'call-1': { confirmed: false, hint: 'sure?' } },
            endOfAgent: true,
            compaction: {
              startTimestamp: 1,
              endTimestamp: 2,
              compactedContent: { role: 'model', parts: [{ text: 'summary' }] },
            },
          },
        });
        await s.appendEvent(session, e);
        const got = await s.getSession({ appName, userId: 'u1', sessionId: session.id });
        assert.deepEqual(got?.events[0], JSON.parse(JSON.stringify(e)));
      }),
    },
    {
      name: "a model response's fields round-trip unchanged: modelVersion, logprobs, cache metadata, transcriptions",
      run: withService(async (s) => {
        const appName = app('response-fields');
        const session = await s.createSession({ appName, userId: 'u1' });
        const e = event({
          author: 'agent',
          content: { role: 'model', parts: [{ text: 'hi' }] },
          modelVersion: 'gemini-2.5-flash-001',
          avgLogprobs: -0.25,
          logprobsResult: { topCandidates: [{ candidates: [{ token: 'hi', logProbability: -0.25 }] }] },
          cacheMetadata: { cacheName: 'projects/p/cachedContents/1', invocationsUsed: 2 },
          citationMetadata: { citations: [{ startIndex: 0, uri: 'https://example.com' }] },
          inputTranscription: { text: 'hello', finished: true },
          outputTranscription: { text: 'hi', finished: true },
        });
        const plain = event({ author: 'user', content: { role: 'user', parts: [{ text: 'plain' }] } });
        await s.appendEvent(session, e);
        await s.appendEvent(session, plain);
        const got = await s.getSession({ appName, userId: 'u1', sessionId: session.id });
        assert.deepEqual(got?.events, JSON.parse(JSON.stringify([e, plain])));
      }),
    },
    {
      name: 'workflow fields round-trip unchanged: output (any JSON, null too), nodeInfo and actions.route',
      run: withService(async (s) => {
        const appName = app('workflow');
        const session = await s.createSession({ appName, userId: 'u1' });
        const events = [
          event(
            {
              author: 'wf',
              output: { verdict: 'ok', scores: [1, 2.5, null], nested: { yes: true } },
              nodeInfo: { path: 'wf@1/review@2', outputFor: ['wf@1/review@2', 'wf@1'] },
            },
            { route: ['approve', 3, false] },
          ),
          event({
            author: 'wf',
            output: null,
            nodeInfo: { path: 'wf@1/clear@1', outputFor: ['wf@1/clear@1'] },
          }),
          event(
            { author: 'wf', output: 'text', nodeInfo: { path: 'wf@1/a@1', messageAsOutput: true } },
            { route: 'next' },
          ),
          event({ author: 'wf', output: 0, nodeInfo: { path: 'wf@1/zero@1' } }),
          event({
            author: 'wf',
            content: {
              role: 'model',
              parts: [
                {
                  functionCall: {
                    id: 'q1',
                    name: 'adk_request_input',
                    args: { interruptId: 'q1', message: 'ok?', response_schema: { type: 'object' } },
                  },
                },
              ],
            },
            longRunningToolIds: ['q1'],
            nodeInfo: { path: 'wf@1/ask@1' },
          }),
          event({ author: 'wf', nodeInfo: { path: 'wf@1/none@1', outputFor: ['wf@1/none@1'] } }),
        ];
        for (const e of events) await s.appendEvent(session, e);
        const got = await s.getSession({ appName, userId: 'u1', sessionId: session.id });
        assert.deepEqual(got?.events, JSON.parse(JSON.stringify(events)));
        assert.equal(got?.events[1]?.output, null);
        assert.ok(got?.events[1] && 'output' in got.events[1], 'a null output is kept, not dropped');
        assert.ok(got?.events[5] && !('output' in got.events[5]), 'no output stays absent');
      }),
    },
    {
      name: 'concurrent appends from many sessions of one user all land in app: and user: state',
      run: withService(async (s) => {
        const appName = app('concurrent');
        const sessions = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            s.createSession({ appName, userId: 'u1', sessionId: `c${i}` }),
          ),
        );
        await Promise.all(
          sessions.map((session, i) =>
            s.appendEvent(session, event({}, { stateDelta: { [`user:k${i}`]: i, [`app:k${i}`]: i } })),
          ),
        );
        const got = await s.getSession({ appName, userId: 'u1', sessionId: 'c0' });
        for (let i = 0; i < 20; i++) {
          assert.equal(got?.state[`user:k${i}`], i, `user:k${i} landed`);
          assert.equal(got?.state[`app:k${i}`], i, `app:k${i} landed`);
        }
      }),
    },
    ...timeTravelConformanceCases(app, withService),
  ];
}
