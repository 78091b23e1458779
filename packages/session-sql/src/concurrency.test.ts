import { createEvent, isAdkError, type Session } from '@adk/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteTitle, testDatabases } from './__fixtures__/databases.js';
import { type AnyKysely, SqlSessionService } from './index.js';

const run = `${process.pid}-${Date.now()}`;
const event = (stateDelta: Record<string, unknown> = {}, text = 'x') =>
  createEvent({
    invocationId: 'inv',
    author: 'agent',
    content: { role: 'model', parts: [{ text }] },
    actions: { stateDelta },
  });

// The store's concurrency guarantees matter most on a real server with a connection pool (true
// parallel transactions); PGlite and SQLite serialize, and are checked for the same outcome.
for (const target of testDatabases()) {
  describe.skipIf(target.skipReason !== undefined)(suiteTitle(target, 'concurrency'), () => {
    let db: AnyKysely;
    let service: SqlSessionService;
    beforeAll(async () => {
      db = await target.open();
      service = new SqlSessionService({ db });
      await service.migrate();
    });
    afterAll(async () => {
      await db?.destroy();
    });

    it('50 sessions of one user append user: and app: deltas at once: every key lands', async () => {
      const appName = `fanout-${run}`;
      const sessions = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          service.createSession({ appName, userId: 'u', sessionId: `s${i}` }),
        ),
      );
      await Promise.all(
        sessions.map((session, i) =>
          service.appendEvent(session, event({ [`user:k${i}`]: i, [`app:k${i}`]: `v${i}`, own: i })),
        ),
      );
      // A second wave on the same keys from other sessions overwrites; no key goes missing.
      await Promise.all(
        sessions.map((session, i) => service.appendEvent(session, event({ [`user:w${i}`]: true }))),
      );
      const got = await service.getSession({ appName, userId: 'u', sessionId: 's0' });
      for (let i = 0; i < 50; i++) {
        expect(got?.state[`user:k${i}`]).toBe(i);
        expect(got?.state[`app:k${i}`]).toBe(`v${i}`);
        expect(got?.state[`user:w${i}`]).toBe(true);
      }
      const other = await service.createSession({ appName, userId: 'someone-else' });
      expect(Object.keys(other.state).filter((k) => k.startsWith('app:'))).toHaveLength(50);
      expect(Object.keys(other.state).filter((k) => k.startsWith('user:'))).toHaveLength(0);
    });

    it('two appends from the same session copy at once: exactly one wins, the other is STALE_SESSION', async () => {
      const appName = `race-${run}`;
      const created = await service.createSession({ appName, userId: 'u', sessionId: 'race' });
      for (let round = 0; round < 10; round++) {
        const copy = (await service.getSession({ appName, userId: 'u', sessionId: 'race' })) as Session;
        const twin: Session = { ...copy, state: { ...copy.state }, events: [...copy.events] };
        const results = await Promise.allSettled([
          service.appendEvent(copy, event({ winner: 'a' }, `a${round}`)),
          service.appendEvent(twin, event({ winner: 'b' }, `b${round}`)),
        ]);
        const fulfilled = results.filter((r) => r.status === 'fulfilled');
        const rejected = results.filter((r) => r.status === 'rejected');
        expect(fulfilled).toHaveLength(1);
        expect(rejected).toHaveLength(1);
        expect(isAdkError((rejected[0] as PromiseRejectedResult).reason, 'STALE_SESSION')).toBe(true);
      }
      const stored = await service.getSession({ appName, userId: 'u', sessionId: created.id });
      expect(stored?.events).toHaveLength(10);
    });

    it('two runners appending to one session at once lose no event and never interleave a copy', async () => {
      const appName = `runners-${run}`;
      await service.createSession({ appName, userId: 'u', sessionId: 'shared' });
      const key = { appName, userId: 'u', sessionId: 'shared' };
      let staleRetries = 0;
      // Each "runner" keeps its own copy and, like the Runner, reloads when told it is stale.
      const runner = async (name: string, count: number) => {
        let copy = (await service.getSession(key)) as Session;
        for (let i = 0; i < count; i++) {
          for (;;) {
            try {
              await service.appendEvent(copy, event({ [`last_${name}`]: i }, `${name}${i}`));
              break;
            } catch (error) {
              if (!isAdkError(error, 'STALE_SESSION')) throw error;
              staleRetries++;
              copy = (await service.getSession(key)) as Session;
            }
          }
        }
      };
      await Promise.all([runner('a', 25), runner('b', 25)]);
      const stored = await service.getSession(key);
      const texts = stored?.events.map((e) => e.content?.parts[0]?.text) ?? [];
      expect(texts).toHaveLength(50);
      // Each runner's events are in its own order, whatever the interleaving between runners.
      for (const name of ['a', 'b']) {
        expect(texts.filter((t) => t?.startsWith(name))).toEqual(
          Array.from({ length: 25 }, (_, i) => `${name}${i}`),
        );
      }
      expect(stored?.state).toMatchObject({ last_a: 24, last_b: 24 });
      // Interleaving is up to the database; staleRetries counts how often a runner had to reload.
      expect(staleRetries).toBeGreaterThanOrEqual(0);
    });
  });
}
