import { sql } from 'kysely';
import { describe, expect, inject, it } from 'vitest';
import { kyselyFromUrl, SqlSessionService } from './index.js';

const postgres = inject('postgres');

// One connection per pool, so that pg_prepared_statements (per connection) shows what the pool did.
describe.skipIf(!postgres.url)(
  `postgres: prepared statements${postgres.url ? '' : ` (skipped: ${postgres.skipReason})`}`,
  () => {
    const prepared = async (db: Awaited<ReturnType<typeof kyselyFromUrl>>) => {
      const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(
        db,
      );
      return rows.map((row) => row.statement);
    };

    it('a statement run twice is prepared once per connection and gives the same results', async () => {
      const db = await kyselyFromUrl(postgres.url ?? '', { maxConnections: 1 });
      try {
        const answers: unknown[] = [];
        for (const n of [1, 2, 3])
          answers.push((await sql<{ n: number }>`select ${n}::int * 2 as n`.execute(db)).rows[0]?.n);
        expect(answers).toEqual([2, 4, 6]);
        expect(await prepared(db)).toEqual(['select $1::int * 2 as n']);
      } finally {
        await db.destroy();
      }
    });

    it('preparedStatements: false runs every statement unnamed', async () => {
      const db = await kyselyFromUrl(postgres.url ?? '', { maxConnections: 1, preparedStatements: false });
      try {
        for (const n of [1, 2, 3]) await sql`select ${n}::int * 2 as n`.execute(db);
        expect(await prepared(db)).toEqual([]);
      } finally {
        await db.destroy();
      }
    });

    it("a session service's turn statements are prepared, and its results are unchanged by it", async () => {
      const service = await SqlSessionService.fromUrl(postgres.url ?? '', { maxConnections: 1 });
      const plain = await SqlSessionService.fromUrl(postgres.url ?? '', {
        maxConnections: 1,
        preparedStatements: false,
      });
      try {
        const key = { appName: `prepared-${process.pid}`, userId: 'u', sessionId: `s-${Date.now()}` };
        let session = await service.createSession({ ...key, state: { n: 0 } });
        for (let i = 1; i <= 4; i++) {
          session = await service.getSession(key).then((s) => s ?? session);
          await service.appendEvent(session, {
            id: `e${i}`,
            invocationId: 'i',
            author: 'user',
            timestamp: Date.now() / 1000 + i,
            content: { role: 'user', parts: [{ text: `m${i}` }] },
            actions: { stateDelta: { n: i }, artifactDelta: {} },
          });
        }
        const viaPrepared = await service.getSession(key);
        const viaPlain = await plain.getSession(key);
        expect(viaPrepared?.events.map((e) => e.id)).toEqual(['e1', 'e2', 'e3', 'e4']);
        expect(viaPlain).toEqual(viaPrepared);
      } finally {
        await service.close();
        await plain.close();
      }
    });
  },
);
