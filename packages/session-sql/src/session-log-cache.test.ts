import { createEvent, type Event } from '@adk/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteTitle, testDatabases } from './__fixtures__/databases.js';
import { type AnyKysely, SqlSessionService } from './index.js';

const run = `${process.pid}-${Date.now()}`;
const said = (text: string): Event =>
  createEvent({ invocationId: 'inv', author: 'agent', content: { role: 'model', parts: [{ text }] } });
const texts = (events: Event[] | undefined) => events?.map((e) => e.content?.parts?.[0]?.text);

// Two services on one database, each with its own cache, stand for two server instances.
for (const target of testDatabases()) {
  describe.skipIf(target.skipReason !== undefined)(suiteTitle(target, 'session log cache'), () => {
    let db: AnyKysely;
    let a: SqlSessionService;
    let b: SqlSessionService;
    beforeAll(async () => {
      db = await target.open();
      a = new SqlSessionService({ db });
      b = new SqlSessionService({ db });
      await a.migrate();
    });
    afterAll(async () => {
      await db?.destroy();
    });

    it('sees what another instance appended after it cached the log, and its own appends', async () => {
      const key = { appName: `cache-${run}`, userId: 'u', sessionId: 'shared' };
      const created = await a.createSession(key);
      await a.appendEvent(created, said('one'));
      expect(texts((await a.getSession(key))?.events)).toEqual(['one']);
      const other = await b.getSession(key);
      if (!other) throw new Error('missing');
      await b.appendEvent(other, createEvent({ ...said('two'), actions: { stateDelta: { k: 2 } } }));
      const seen = await a.getSession(key);
      expect(texts(seen?.events)).toEqual(['one', 'two']);
      expect(seen?.state.k).toBe(2);
      if (!seen) throw new Error('missing');
      await a.appendEvent(seen, said('three'));
      expect(texts((await a.getSession(key))?.events)).toEqual(['one', 'two', 'three']);
      expect(texts((await b.getSession(key))?.events)).toEqual(['one', 'two', 'three']);
      // Filters are applied to the cached log exactly as the database applies them.
      expect(texts((await a.getSession({ ...key, numRecentEvents: 2 }))?.events)).toEqual(['two', 'three']);
      expect((await a.getSession({ ...key, numRecentEvents: 0 }))?.events).toEqual([]);
    });

    it('the newest events of a session not cached yet come from one bounded read; the log is right after it', async () => {
      const key = { appName: `cache-${run}`, userId: 'u', sessionId: 'cold-recent' };
      let session = await a.createSession(key);
      for (const word of ['one', 'two', 'three', 'four']) {
        await a.appendEvent(session, said(word));
        session = (await a.getSession(key)) ?? session;
      }
      const cold = new SqlSessionService({ db });
      expect(texts((await cold.getSession({ ...key, numRecentEvents: 2 }))?.events)).toEqual([
        'three',
        'four',
      ]);
      expect(texts((await cold.getSession({ ...key, numRecentEvents: 9 }))?.events)).toEqual([
        'one',
        'two',
        'three',
        'four',
      ]);
      expect(texts((await cold.getSession(key))?.events)).toEqual(['one', 'two', 'three', 'four']);
      const full = await cold.getSession(key);
      if (!full) throw new Error('missing');
      await cold.appendEvent(full, said('five'));
      // Now cached: the same answers from the cache, including what was appended.
      expect(texts((await cold.getSession({ ...key, numRecentEvents: 2 }))?.events)).toEqual([
        'four',
        'five',
      ]);
      expect(texts((await a.getSession({ ...key, numRecentEvents: 1 }))?.events)).toEqual(['five']);
    });

    it('a stale copy still fails after the cache served it, and the cache recovers', async () => {
      const key = { appName: `cache-${run}`, userId: 'u', sessionId: 'stale' };
      await a.createSession(key);
      const copyA = await a.getSession(key);
      const copyB = await b.getSession(key);
      if (!copyA || !copyB) throw new Error('missing');
      await b.appendEvent(copyB, said('from b'));
      await expect(a.appendEvent(copyA, said('from a'))).rejects.toMatchObject({ code: 'STALE_SESSION' });
      expect(texts((await a.getSession(key))?.events)).toEqual(['from b']);
    });

    it('a session deleted and created again under the same id never shows the old log', async () => {
      const key = { appName: `cache-${run}`, userId: 'u', sessionId: 'again' };
      const first = await a.createSession(key);
      await a.appendEvent(first, said('old'));
      await a.appendEvent(first, said('older'));
      expect(texts((await a.getSession(key))?.events)).toEqual(['old', 'older']);
      await b.deleteSession(key);
      const second = await b.createSession(key);
      await b.appendEvent(second, said('new'));
      expect(texts((await a.getSession(key))?.events)).toEqual(['new']);
      await b.deleteSession(key);
      expect(await a.getSession(key)).toBeUndefined();
    });

    it('copies handed out are independent of the cache', async () => {
      const key = { appName: `cache-${run}`, userId: 'u', sessionId: 'copies' };
      const created = await a.createSession(key);
      await a.appendEvent(created, said('x'));
      const one = await a.getSession(key);
      one?.events.push(said('local only'));
      expect(texts((await a.getSession(key))?.events)).toEqual(['x']);
    });
  });
}
