import { createEvent, type Event, MemoryJobWorker } from '@adk/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteTitle, testDatabases } from './__fixtures__/databases.js';
import { type AnyKysely, SqlMemoryJobQueue, SqlMemoryService } from './index.js';

for (const target of testDatabases()) {
  describe.skipIf(target.skipReason !== undefined)(suiteTitle(target, 'SqlMemoryJobQueue'), () => {
    let db: AnyKysely;
    let n = 0;
    const prefix = () => `mjq_${process.pid}_${n++}_`;
    beforeAll(async () => {
      db = await target.open();
    });
    afterAll(async () => {
      await db?.destroy();
    });

    it('enqueue is idempotent by (kind, event id); claims are leases, batches are of one kind', async () => {
      const queue = new SqlMemoryJobQueue({ db, tablePrefix: prefix() });
      const base = { appName: 'a', userId: 'u', sessionId: 's' };
      const [first] = await queue.enqueue([{ ...base, kind: 'index', eventIds: ['e1', 'e2'] }]);
      expect(first?.eventIds).toEqual(['e1', 'e2']);
      expect(await queue.enqueue([{ ...base, kind: 'index', eventIds: ['e2', 'e1'] }])).toEqual([]);
      const [partly] = await queue.enqueue([{ ...base, kind: 'index', eventIds: ['e2', 'e3'] }]);
      expect(partly?.eventIds).toEqual(['e3']);
      await queue.enqueue([{ ...base, kind: 'facts', eventIds: ['e1'], payload: { x: 1 } }]);
      expect(await queue.stats()).toMatchObject({ pending: 3, running: 0 });

      const now = Date.now();
      const claimed = await queue.claim({ workerId: 'w1', limit: 10, leaseMs: 1000, now });
      expect(claimed.map((j) => j.kind)).toEqual(['index', 'index']);
      expect(claimed.every((j) => j.attempts === 1 && j.status === 'running')).toBe(true);
      const facts = await queue.claim({ workerId: 'w2', limit: 10, leaseMs: 1000, now });
      expect(facts.map((j) => j.payload)).toEqual([{ x: 1 }]);
      expect(await queue.claim({ workerId: 'w2', limit: 10, leaseMs: 1000, now })).toEqual([]);
      // w1's lease ends: w3 takes its jobs over; w1 can no longer complete them.
      const taken = await queue.claim({ workerId: 'w3', limit: 10, leaseMs: 1000, now: now + 5000 });
      expect(taken.map((j) => j.id).sort()).toEqual(claimed.map((j) => j.id).sort());
      await queue.complete(
        claimed.map((j) => j.id),
        'w1',
      );
      expect((await queue.stats()).done).toBe(0);
      await queue.complete(
        taken.map((j) => j.id),
        'w3',
      );
      await queue.fail(facts[0]?.id ?? '', 'w2', 'model down', undefined);
      expect(await queue.stats()).toMatchObject({ pending: 0, running: 0, done: 2, failed: 1 });
      const [failed] = await queue.list({ status: 'failed' });
      expect(failed).toMatchObject({ kind: 'facts', lastError: 'model down', attempts: 1 });
    });

    it('a worker indexes enqueued turns into SqlMemoryService in batches, retrying failures', async () => {
      const tablePrefix = prefix();
      const queue = new SqlMemoryJobQueue({ db, tablePrefix });
      const memory = new SqlMemoryService({ db, tablePrefix, jobs: queue });
      const events: Event[] = ['the okapi lives in Congo', 'okapis eat leaves'].map((text, i) =>
        createEvent({
          invocationId: 'i',
          author: 'user',
          timestamp: 1000 + i,
          content: { role: 'user', parts: [{ text }] },
        }),
      );
      for (const e of events)
        await queue.enqueue([{ kind: 'index', appName: 'a', userId: 'u', sessionId: 's', eventIds: [e.id] }]);
      let failures = 1;
      const worker = new MemoryJobWorker({
        queue,
        memory,
        backoffMs: () => 1,
        loadEvents: async () => {
          if (failures-- > 0) throw new Error('session store busy');
          return events;
        },
      });
      await worker.flush();
      const found = await memory.searchMemory({ appName: 'a', userId: 'u', query: 'okapi congo' });
      expect(found.memories[0]?.content.parts[0]?.text).toBe('the okapi lives in Congo');
      const done = await queue.list({ status: 'done' });
      expect(done.map((j) => j.attempts)).toEqual([2, 2]);
    });
  });
}
