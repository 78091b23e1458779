import { createEvent, forkSessionIn, visibleEvents } from '@adk/core';
import { timeTravelRunnerConformance } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteTitle, testDatabases } from './__fixtures__/databases.js';
import {
  type AnyKysely,
  migrateToLatest,
  SqlArtifactService,
  SqlMemoryService,
  SqlRunStore,
  SqlSessionService,
} from './index.js';

const tablePrefix = `tt_${process.pid}_`;

for (const target of testDatabases()) {
  describe.skipIf(target.skipReason !== undefined)(suiteTitle(target, 'time travel'), () => {
    let db: AnyKysely;
    beforeAll(async () => {
      db = await target.open();
      await migrateToLatest(db, { tablePrefix });
    });
    afterAll(async () => {
      await db?.destroy();
    });

    describe('through the Runner', () => {
      for (const c of timeTravelRunnerConformance(() => {
        const sessionService = new SqlSessionService({ db, tablePrefix });
        const artifactService = new SqlArtifactService({ db, tablePrefix });
        const runStore = new SqlRunStore({ db, tablePrefix });
        return {
          sessionService,
          artifactService,
          runStore,
          teardown: async () => {
            await sessionService.close();
            await artifactService.close();
            await runStore.close();
          },
        };
      }))
        it(c.name, c.run);
    });

    it('a session rewound or forked on one instance reads the same on another', async () => {
      const a = new SqlSessionService({ db, tablePrefix });
      const b = new SqlSessionService({ db, tablePrefix });
      const appName = `tt-two-${target.name}`;
      const key = { appName, userId: 'u', sessionId: 's' };
      const session = await a.createSession({ ...key, state: { topic: 'cats' } });
      const turn = (invocationId: string, text: string, stateDelta: Record<string, unknown> = {}) =>
        createEvent({
          invocationId,
          author: 'user',
          content: { role: 'user', parts: [{ text }] },
          actions: { stateDelta },
        });
      await a.appendEvent(session, turn('inv-1', 'one', { step: 1 }));
      // b reads (and caches) the log before a rewinds it.
      expect((await b.getSession(key))?.events).toHaveLength(1);
      await a.appendEvent(session, turn('inv-2', 'two', { step: 2 }));
      const rewind = createEvent({
        invocationId: 'inv-r',
        author: 'user',
        actions: { stateDelta: { step: 1 }, artifactDelta: {}, rewindBeforeInvocationId: 'inv-2' },
      });
      await a.appendEvent(session, rewind);
      const seenByB = await b.getSession(key);
      expect(seenByB).toEqual(await a.getSession(key));
      expect(visibleEvents(seenByB?.events ?? []).map((e) => e.invocationId)).toEqual(['inv-1', 'inv-r']);
      expect(seenByB?.initialState).toEqual({ topic: 'cats' });

      const fork = await forkSessionIn(b, { ...key, beforeInvocationId: 'inv-2', newSessionId: 'f' });
      const forkOnA = await a.getSession({ ...key, sessionId: 'f' });
      expect(forkOnA).toEqual(fork);
      expect(forkOnA?.forkedFrom).toEqual({ sessionId: 's', eventId: seenByB?.events[0]?.id });
      expect(forkOnA?.state).toEqual({ topic: 'cats', step: 1 });
      const listed = await a.listSessions({ appName, userId: 'u' });
      expect(listed.sessions.find((x) => x.id === 'f')?.forkedFrom).toEqual(forkOnA?.forkedFrom);
      await a.close();
      await b.close();
    });

    it('memory ingestion keeps only the visible history', async () => {
      const s = new SqlSessionService({ db, tablePrefix });
      const memory = new SqlMemoryService({ db, tablePrefix });
      const appName = `tt-memory-${target.name}`;
      const key = { appName, userId: 'u', sessionId: 's' };
      const session = await s.createSession(key);
      const said = (invocationId: string, text: string) =>
        createEvent({ invocationId, author: 'user', content: { role: 'user', parts: [{ text }] } });
      await s.appendEvent(session, said('inv-1', 'my harbour is Lisbon'));
      await s.appendEvent(session, said('inv-2', 'my password is hunter2'));
      await s.appendEvent(
        session,
        createEvent({
          invocationId: 'inv-r',
          author: 'user',
          actions: { stateDelta: {}, artifactDelta: {}, rewindBeforeInvocationId: 'inv-2' },
        }),
      );
      await memory.addSessionToMemory(session);
      const search = (query: string) => memory.searchMemory({ appName, userId: 'u', query });
      expect((await search('harbour')).memories).toHaveLength(1);
      expect((await search('hunter2')).memories).toHaveLength(0);
      await memory.close();
      await s.close();
    });

    it('a fork is one transaction: a taken id leaves no copied events behind', async () => {
      const s = new SqlSessionService({ db, tablePrefix });
      const appName = `tt-tx-${target.name}`;
      const key = { appName, userId: 'u', sessionId: 's' };
      const session = await s.createSession(key);
      await s.appendEvent(
        session,
        createEvent({
          invocationId: 'inv-1',
          author: 'user',
          content: { role: 'user', parts: [{ text: 'x' }] },
        }),
      );
      await s.createSession({ ...key, sessionId: 'taken' });
      await expect(
        forkSessionIn(s, { ...key, beforeInvocationId: 'inv-1', newSessionId: 'taken' }),
      ).rejects.toThrow(/already exists/);
      await expect(
        forkSessionIn(s, { ...key, atEventId: session.events[0]?.id ?? '', newSessionId: 'taken' }),
      ).rejects.toThrow(/already exists/);
      expect((await s.getSession({ ...key, sessionId: 'taken' }))?.events).toEqual([]);
      await s.close();
    });
  });
}
