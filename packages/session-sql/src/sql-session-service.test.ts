import { createEvent, type Event, isAdkError, type Session } from '@adk/core';
import { sessionServiceConformance } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteTitle, testDatabases } from './__fixtures__/databases.js';
import { type AnyKysely, migrateToLatest, SqlSessionService } from './index.js';

let counter = 0;
const key = (session: Session) => ({
  appName: session.appName,
  userId: session.userId,
  sessionId: session.id,
});
const uniqueApp = (name: string) => `parity-${name}-${process.pid}-${++counter}`;

const agentEvent = (init: { text?: string; author?: string; stateDelta?: Record<string, unknown> } = {}) =>
  createEvent({
    invocationId: `inv-${++counter}`,
    author: init.author ?? 'test_agent',
    content: { role: 'model', parts: [{ text: init.text ?? 'hello' }] },
    actions: { stateDelta: init.stateDelta ?? {} },
  });

for (const target of testDatabases()) {
  describe.skipIf(target.skipReason !== undefined)(suiteTitle(target, 'SqlSessionService'), () => {
    let db: AnyKysely;
    beforeAll(async () => {
      db = await target.open();
      // Start the engine and create the tables here, under the hook timeout, not in the first test.
      await migrateToLatest(db);
    });
    afterAll(async () => {
      await db?.destroy();
    });
    const service = () => new SqlSessionService({ db });

    describe('core SessionService conformance', () => {
      for (const c of sessionServiceConformance(service, { appPrefix: `conf-${target.name}` }))
        it(c.name, c.run);
    });

    // Every behaviour of adk_ex_ecto's session_service_test.exs, plus the faults it had, fixed.
    describe('adk_ex_ecto behaviours', () => {
      it('create stores the session and returns it with empty merged state and no events', async () => {
        const s = service();
        const session = await s.createSession({ appName: uniqueApp('create'), userId: 'user1' });
        expect(session.userId).toBe('user1');
        expect(session.id).toMatch(/\S/);
        expect(session.events).toEqual([]);
        expect(session.state).toEqual({});
        expect(await s.getSession(key(session))).toEqual(session);
      });

      it('create routes app:/user: state to their own tables, without prefix', async () => {
        const s = service();
        const appName = uniqueApp('route');
        const session = await s.createSession({
          appName,
          userId: 'user1',
          state: { 'app:model': 'gpt-4', 'user:pref': 'dark', counter: 0 },
        });
        expect(session.state).toEqual({ 'app:model': 'gpt-4', 'user:pref': 'dark', counter: 0 });
        const t = (name: string) => `adk_${name}`;
        const app = await db
          .selectFrom(t('app_states'))
          .selectAll()
          .where('app_name', '=', appName)
          .execute();
        expect(app).toHaveLength(1);
        const user = await db
          .selectFrom(t('user_states'))
          .selectAll()
          .where('app_name', '=', appName)
          .execute();
        expect(user).toHaveLength(1);
        const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
        expect(parse(app[0]?.state)).toEqual({ model: 'gpt-4' });
        expect(parse(user[0]?.state)).toEqual({ pref: 'dark' });
        const row = await db
          .selectFrom(t('sessions'))
          .select('state')
          .where('app_name', '=', appName)
          .executeTakeFirst();
        expect(parse(row?.state)).toEqual({ counter: 0 });
      });

      it('create with an explicit id; a duplicate id is ALREADY_EXISTS, not a crash', async () => {
        const s = service();
        const appName = uniqueApp('explicit');
        const session = await s.createSession({ appName, userId: 'user1', sessionId: 'my-session' });
        expect(session.id).toBe('my-session');
        const error = await s
          .createSession({ appName, userId: 'user1', sessionId: 'my-session' })
          .catch((e) => e);
        expect(isAdkError(error, 'ALREADY_EXISTS')).toBe(true);
      });

      it('get returns merged state (session + app + user)', async () => {
        const s = service();
        const session = await s.createSession({
          appName: uniqueApp('merged'),
          userId: 'user1',
          state: { 'app:shared': 'yes', 'user:name': 'Alice', local: 'data' },
        });
        const fetched = await s.getSession(key(session));
        expect(fetched?.state).toEqual({ 'app:shared': 'yes', 'user:name': 'Alice', local: 'data' });
      });

      it('get of a missing session is undefined', async () => {
        expect(
          await service().getSession({ appName: 'nope', userId: 'nope', sessionId: 'nope' }),
        ).toBeUndefined();
      });

      it('numRecentEvents limits the events, keeping the newest, in chronological order', async () => {
        const s = service();
        const session = await s.createSession({ appName: uniqueApp('recent'), userId: 'user1' });
        for (let i = 1; i <= 5; i++) await s.appendEvent(session, agentEvent({ text: `msg ${i}` }));
        const fetched = await s.getSession({ ...key(session), numRecentEvents: 2 });
        expect(fetched?.events.map((e) => e.content?.parts[0]?.text)).toEqual(['msg 4', 'msg 5']);
      });

      it('events come back in the order appended, even within one millisecond', async () => {
        const s = service();
        const session = await s.createSession({ appName: uniqueApp('order'), userId: 'user1' });
        const timestamp = Date.now();
        for (let i = 1; i <= 3; i++) {
          await s.appendEvent(session, { ...agentEvent({ text: `msg ${i}` }), timestamp });
        }
        const fetched = await s.getSession(key(session));
        expect(fetched?.events.map((e) => e.content?.parts[0]?.text)).toEqual(['msg 1', 'msg 2', 'msg 3']);
      });

      it('list by app and user; another user sees none', async () => {
        const s = service();
        const appName = uniqueApp('list');
        await s.createSession({ appName, userId: 'user1', sessionId: 's1' });
        await s.createSession({ appName, userId: 'user1', sessionId: 's2' });
        const { sessions } = await s.listSessions({ appName, userId: 'user1' });
        expect(sessions.map((x) => x.id).sort()).toEqual(['s1', 's2']);
        expect((await s.listSessions({ appName, userId: 'other_user' })).sessions).toEqual([]);
      });

      it('list carries merged state and no events, newest update first', async () => {
        const s = service();
        const appName = uniqueApp('list-state');
        const a = await s.createSession({ appName, userId: 'user1', sessionId: 'a', state: { own: 'a' } });
        await s.createSession({ appName, userId: 'user1', sessionId: 'b', state: { 'user:u': 1 } });
        await s.appendEvent(a, agentEvent({ stateDelta: { 'app:x': true } }));
        const { sessions } = await s.listSessions({ appName, userId: 'user1' });
        expect(sessions.map((x) => [x.id, x.state, x.events])).toEqual([
          ['a', { own: 'a', 'app:x': true, 'user:u': 1 }, []],
          ['b', { 'app:x': true, 'user:u': 1 }, []],
        ]);
        expect(sessions[0]?.lastUpdateTime).toBe(a.lastUpdateTime);
      });

      it('delete removes the session and its events', async () => {
        const s = service();
        const session = await s.createSession({ appName: uniqueApp('delete'), userId: 'user1' });
        await s.appendEvent(session, agentEvent());
        await s.deleteSession(key(session));
        expect(await s.getSession(key(session))).toBeUndefined();
        const left = await db
          .selectFrom('adk_events')
          .select('id')
          .where('app_name', '=', session.appName)
          .execute();
        expect(left).toEqual([]);
      });

      it('append persists the event', async () => {
        const s = service();
        const session = await s.createSession({ appName: uniqueApp('persist'), userId: 'user1' });
        await s.appendEvent(session, agentEvent({ text: 'stored message' }));
        const fetched = await s.getSession(key(session));
        expect(fetched?.events.map((e) => e.content?.parts[0]?.text)).toEqual(['stored message']);
      });

      it('append routes state delta prefixes and discards temp: keys', async () => {
        const s = service();
        const session = await s.createSession({ appName: uniqueApp('delta'), userId: 'user1' });
        await s.appendEvent(
          session,
          agentEvent({
            stateDelta: {
              'app:global_key': 'global_val',
              'user:user_key': 'user_val',
              session_key: 'session_val',
              'temp:scratch': 'gone',
            },
          }),
        );
        const fetched = await s.getSession(key(session));
        expect(fetched?.state).toEqual({
          'app:global_key': 'global_val',
          'user:user_key': 'user_val',
          session_key: 'session_val',
        });
        expect(fetched?.events[0]?.actions.stateDelta).not.toHaveProperty('temp:scratch');
      });

      it('append moves the update time forward', async () => {
        const s = service();
        const session = await s.createSession({ appName: uniqueApp('time'), userId: 'user1' });
        const original = session.lastUpdateTime;
        await s.appendEvent(session, agentEvent());
        const fetched = await s.getSession(key(session));
        expect(fetched?.lastUpdateTime).toBeGreaterThan(original);
        expect(fetched?.lastUpdateTime).toBe(session.lastUpdateTime);
      });

      it('partial events are skipped', async () => {
        const s = service();
        const session = await s.createSession({ appName: uniqueApp('partial'), userId: 'user1' });
        await s.appendEvent(session, { ...agentEvent(), partial: true });
        expect((await s.getSession(key(session)))?.events).toEqual([]);
      });

      it('app state is visible in every session of the app; user state in the user’s sessions', async () => {
        const s = service();
        const appName = uniqueApp('shared');
        const s1 = await s.createSession({ appName, userId: 'user1', sessionId: 's1' });
        await s.createSession({ appName, userId: 'user1', sessionId: 's2' });
        await s.createSession({ appName, userId: 'user2', sessionId: 's3' });
        await s.appendEvent(s1, agentEvent({ stateDelta: { 'app:shared': 'value', 'user:pref': 'dark' } }));
        expect((await s.getSession({ appName, userId: 'user1', sessionId: 's2' }))?.state).toEqual({
          'app:shared': 'value',
          'user:pref': 'dark',
        });
        expect((await s.getSession({ appName, userId: 'user2', sessionId: 's3' }))?.state).toEqual({
          'app:shared': 'value',
        });
      });

      it('empty state maps are stored as {} (not null)', async () => {
        const s = service();
        const session = await s.createSession({ appName: uniqueApp('empty'), userId: 'user1', state: {} });
        expect((await s.getSession(key(session)))?.state).toEqual({});
        const rows = await db
          .selectFrom('adk_sessions')
          .select('state')
          .where('app_name', '=', session.appName)
          .execute();
        const stored = rows[0]?.state;
        expect(typeof stored === 'string' ? JSON.parse(stored) : stored).toEqual({});
      });

      it('content and actions round-trip exactly, including binary data and JSON nulls', async () => {
        const s = service();
        const session = await s.createSession({ appName: uniqueApp('json'), userId: 'user1' });
        const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i)).toString('base64');
        const event: Event = createEvent({
          invocationId: 'inv',
          author: 'agent',
          content: {
            role: 'model',
            parts: [
              { text: 'hello world' },
              {
                functionCall: {
                  id: 'fc1',
                  name: 'my_tool',
                  args: { key: 'value', n: null, big: 2 ** 53 - 1 },
                },
              },
              { inlineData: { mimeType: 'application/octet-stream', data: bytes } },
            ],
          },
          actions: {
            stateDelta: { 'app:x': 1, 'user:y': 2, z: 3, nothing: null, nested: { a: [0.1, -0, 1e21] } },
          },
          groundingMetadata: null,
        });
        await s.appendEvent(session, event);
        const [stored] = (await s.getSession(key(session)))?.events ?? [];
        expect(stored).toEqual(JSON.parse(JSON.stringify(event)));
        expect(stored).toHaveProperty('groundingMetadata', null);
        expect(stored).not.toHaveProperty('branch');
        expect(stored?.content?.parts[2]?.inlineData?.data).toBe(bytes);
      });

      it('full create → append → get cycle', async () => {
        const s = service();
        const session = await s.createSession({
          appName: uniqueApp('cycle'),
          userId: 'user1',
          state: { 'app:model': 'gpt-4', counter: 0 },
        });
        await s.appendEvent(session, agentEvent({ author: 'user', text: 'Hello!' }));
        await s.appendEvent(
          session,
          agentEvent({
            author: 'agent',
            text: 'Hi there!',
            stateDelta: { counter: 1, 'user:last_seen': 'now', 'temp:scratch': 'ignored' },
          }),
        );
        const fetched = await s.getSession(key(session));
        expect(fetched?.events).toHaveLength(2);
        expect(fetched?.state).toEqual({ 'app:model': 'gpt-4', counter: 1, 'user:last_seen': 'now' });
        expect(fetched).toEqual(session);
      });

      it('the migration creates the four tables', async () => {
        await service().migrate();
        for (const table of ['adk_sessions', 'adk_events', 'adk_app_states', 'adk_user_states']) {
          expect(await db.selectFrom(table).selectAll().limit(0).execute()).toEqual([]);
        }
      });
    });

    describe('beyond the original', () => {
      it('state values replace top-level keys (no deep merge) and keep null values', async () => {
        const s = service();
        const appName = uniqueApp('replace');
        const session = await s.createSession({
          appName,
          userId: 'u',
          state: { obj: { a: 1 }, 'app:obj': { a: 1 }, 'user:obj': { a: 1 } },
        });
        await s.appendEvent(
          session,
          agentEvent({
            stateDelta: { obj: { b: 2 }, 'app:obj': { b: 2 }, 'user:obj': null, 'we"ird.key[0]': 1 },
          }),
        );
        const expected = { obj: { b: 2 }, 'app:obj': { b: 2 }, 'user:obj': null, 'we"ird.key[0]': 1 };
        expect(session.state).toEqual(expected);
        expect((await s.getSession(key(session)))?.state).toEqual(expected);
      });

      it('the same event id cannot be stored twice in a session', async () => {
        const s = service();
        const session = await s.createSession({ appName: uniqueApp('dup-event'), userId: 'u' });
        const event = agentEvent();
        await s.appendEvent(session, event);
        const error = await s.appendEvent(session, event).catch((e) => e);
        expect(isAdkError(error, 'ALREADY_EXISTS')).toBe(true);
        expect((await s.getSession(key(session)))?.events).toHaveLength(1);
      });

      it('a NUL character in JSON is a VALIDATION error on Postgres (jsonb cannot hold it) and kept on SQLite', async () => {
        const s = service();
        const session = await s.createSession({ appName: uniqueApp('nul'), userId: 'u' });
        const append = s.appendEvent(session, agentEvent({ text: 'a\u0000b' }));
        if (target.name === 'sqlite') {
          await append;
          expect((await s.getSession(key(session)))?.events[0]?.content?.parts[0]?.text).toBe('a\u0000b');
        } else {
          const error = await append.catch((e) => e);
          expect(isAdkError(error, 'VALIDATION')).toBe(true);
          // The message says which event and field could not be stored.
          expect((error as Error).message).toMatch(/^content of event \S+ contains a NUL character/);
        }
      });

      it('a bad page token is a VALIDATION error', async () => {
        const error = await service()
          .listSessions({ appName: 'x', pageToken: 'not-a-token' })
          .catch((e) => e);
        expect(isAdkError(error, 'VALIDATION')).toBe(true);
      });

      it('pages across users with equal update times are stable', async () => {
        const s = service();
        const appName = uniqueApp('pages');
        for (const user of ['u2', 'u1']) {
          for (const id of ['b', 'a', 'c']) await s.createSession({ appName, userId: user, sessionId: id });
        }
        const seen: string[] = [];
        let pageToken: string | undefined;
        do {
          const page = await s.listSessions({ appName, pageSize: 4, ...(pageToken ? { pageToken } : {}) });
          seen.push(...page.sessions.map((x) => `${x.userId}/${x.id}`));
          pageToken = page.nextPageToken;
        } while (pageToken);
        expect(seen).toHaveLength(6);
        expect(new Set(seen).size).toBe(6);
      });

      it('lastUpdateTime round-trips exactly through the database', async () => {
        const s = service();
        const session = await s.createSession({ appName: uniqueApp('time-exact'), userId: 'u' });
        for (let i = 0; i < 5; i++) {
          await s.appendEvent(session, agentEvent());
          const fetched = await s.getSession(key(session));
          expect(fetched?.lastUpdateTime).toBe(session.lastUpdateTime);
        }
      });
    });
  });
}
