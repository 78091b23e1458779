import { Kysely, sql } from 'kysely';
import { describe, expect, inject, it } from 'vitest';
import { kyselyFromUrl, PgliteDialect, pgliteProtocol, SqlSessionService } from './index.js';

const postgres = inject('postgres');
const targets = [
  { name: 'pglite', url: 'pglite://memory', skipReason: undefined },
  { name: 'postgres', url: postgres.url ?? '', skipReason: postgres.url ? undefined : postgres.skipReason },
];

// One connection per pool, so that pg_prepared_statements (per connection) shows what the pool did.
describe.each(targets)('$name: prepared statements', ({ url, skipReason }) => {
  if (skipReason) console.warn(`[session-sql] prepared statements skipped: ${skipReason}`);
  const prepared = async (db: Awaited<ReturnType<typeof kyselyFromUrl>>) => {
    const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(
      db,
    );
    return rows.map((row) => row.statement);
  };

  it.skipIf(skipReason)(
    'a statement run twice is prepared once per connection and gives the same results',
    async () => {
      const db = await kyselyFromUrl(url, { maxConnections: 1 });
      try {
        const answers: unknown[] = [];
        for (const n of [1, 2, 3])
          answers.push((await sql<{ n: number }>`select ${n}::int * 2 as n`.execute(db)).rows[0]?.n);
        expect(answers).toEqual([2, 4, 6]);
        expect(await prepared(db)).toEqual(['select $1::int * 2 as n']);
      } finally {
        await db.destroy();
      }
    },
  );

  it.skipIf(skipReason)('preparedStatements: false runs every statement unnamed', async () => {
    const db = await kyselyFromUrl(url, { maxConnections: 1, preparedStatements: false });
    try {
      for (const n of [1, 2, 3]) await sql`select ${n}::int * 2 as n`.execute(db);
      expect(await prepared(db)).toEqual([]);
    } finally {
      await db.destroy();
    }
  });

  it.skipIf(skipReason)(
    'a failing prepared statement reports its error, inside and outside a transaction',
    async () => {
      const db = await kyselyFromUrl(url, { maxConnections: 1 });
      try {
        await sql`create temporary table prepared_t (id int primary key)`.execute(db);
        const insert = (executor: typeof db, id: number) =>
          sql`insert into prepared_t (id) values (${id})`.execute(executor);
        await insert(db, 1);
        await insert(db, 2);
        const duplicate = await insert(db, 1).catch((error: unknown) => error);
        expect((duplicate as { code?: string }).code).toBe('23505');
        const rolledBack = await db
          .transaction()
          .execute(async (trx) => {
            await insert(trx, 3);
            await insert(trx, 2);
          })
          .catch((error: unknown) => error);
        expect((rolledBack as { code?: string }).code).toBe('23505');
        await db.transaction().execute((trx) => insert(trx, 4));
        const { rows } = await sql<{ id: number }>`select id from prepared_t order by id`.execute(db);
        expect(rows.map((row) => row.id)).toEqual([1, 2, 4]);
        expect(await prepared(db)).toContain('insert into prepared_t (id) values ($1)');
        // Prepared inside a transaction that rolls back: still there afterwards.
        await db
          .transaction()
          .execute(async (trx) => {
            for (const n of [1, 2]) await sql`select ${n}::int + 10 as n`.execute(trx);
            throw new Error('roll back');
          })
          .catch(() => undefined);
        const after = await sql<{ n: number }>`select ${5}::int + 10 as n`.execute(db);
        expect(after.rows[0]?.n).toBe(15);
      } finally {
        await db.destroy();
      }
    },
  );

  it.skipIf(skipReason)(
    'a session service gives the same sessions with and without prepared statements',
    async () => {
      const play = async (service: SqlSessionService, sessionId: string) => {
        const key = { appName: `prepared-${process.pid}`, userId: 'u', sessionId };
        let session = await service.createSession({ ...key, state: { n: 0, 'user:seen': 0 } });
        for (let i = 1; i <= 4; i++) {
          session = (await service.getSession(key)) ?? session;
          await service.appendEvent(session, {
            id: `e${i}`,
            invocationId: 'i',
            author: 'user',
            timestamp: 1_700_000_000 + i,
            content: { role: 'user', parts: [{ text: `m${i}` }] },
            actions: { stateDelta: { n: i, ...(i % 2 ? { 'user:seen': i } : {}) }, artifactDelta: {} },
          });
        }
        const stored = await service.getSession(key);
        return { state: stored?.state, events: stored?.events };
      };
      const service = await SqlSessionService.fromUrl(url, { maxConnections: 1 });
      const plain = await SqlSessionService.fromUrl(url, { maxConnections: 1, preparedStatements: false });
      try {
        const run = `${Date.now()}`;
        const viaPrepared = await play(service, `prepared-${run}`);
        const viaPlain = await play(plain, `plain-${run}`);
        expect(viaPrepared.events?.map((e) => e.id)).toEqual(['e1', 'e2', 'e3', 'e4']);
        expect(viaPrepared.state).toEqual({ n: 4, 'user:seen': 3 });
        expect(viaPrepared).toEqual(viaPlain);
      } finally {
        await service.close();
        await plain.close();
      }
    },
  );
});

describe.each(targets)('$name: statements without parameters', ({ url, skipReason }) => {
  it.skipIf(skipReason)(
    'several statements in one text run every time (they are never prepared)',
    async () => {
      const db = await kyselyFromUrl(url, { maxConnections: 1 });
      try {
        if (url.startsWith('pglite')) {
          // PGlite's own query sends every statement through the extended protocol: one per text.
          for (let i = 0; i < 3; i++) await sql`select 1`.execute(db);
        } else {
          for (let i = 0; i < 3; i++) await sql.raw('select 1; select 2').execute(db);
        }
      } finally {
        await db.destroy();
      }
    },
  );
});

describe('pglite: named statements belong to the PGlite instance', () => {
  const open = async () => {
    const pgliteModule = await import('@electric-sql/pglite');
    const protocol = pgliteProtocol(pgliteModule);
    const pglite = new pgliteModule.PGlite();
    const dialect = () =>
      new Kysely<unknown>({
        dialect: new PgliteDialect({ pglite, closeOnDestroy: false, ...(protocol ? { protocol } : {}) }),
      });
    return { pglite, dialect };
  };

  it('a Kysely rebuilt on the same instance, and two at once, share its statement names', async () => {
    const { pglite, dialect } = await open();
    const first = dialect();
    for (const n of [1, 2]) await sql`select ${n}::int + 1 as n`.execute(first);
    await first.destroy();
    const second = dialect();
    const third = dialect();
    const answers: unknown[] = [];
    for (const n of [1, 2, 3]) {
      answers.push((await sql<{ n: number }>`select ${n}::int + 2 as n`.execute(second)).rows[0]?.n);
      answers.push((await sql<{ n: number }>`select ${n}::int + 1 as n`.execute(third)).rows[0]?.n);
    }
    expect(answers).toEqual([3, 2, 4, 3, 5, 4]);
    await second.destroy();
    await third.destroy();
    await pglite.close();
  });

  it('a named statement waits for a transaction another user of the instance has open', async () => {
    const { pglite, dialect } = await open();
    const db = dialect();
    await sql`create table waits (id int)`.execute(db);
    const insert = (id: number) => sql`insert into waits (id) values (${id})`.execute(db);
    await insert(1);
    await insert(2); // named from here on
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const other = pglite
      .transaction(async (tx) => {
        await tx.query('insert into waits (id) values (100)');
        await gate;
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await new Promise((r) => setTimeout(r, 20));
    let done = false;
    const mine = insert(42).then(() => {
      done = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(done).toBe(false);
    release();
    await other;
    await mine;
    const { rows } = await sql<{ id: number }>`select id from waits order by id`.execute(db);
    expect(rows.map((row) => row.id)).toEqual([1, 2, 42]);
    await db.destroy();
    await pglite.close();
  });
});

describe('pgliteProtocol', () => {
  it("takes PGlite's helpers from its module, and is undefined for a release without them", async () => {
    const protocol = pgliteProtocol(await import('@electric-sql/pglite'));
    expect(typeof protocol?.serialize.parse).toBe('function');
    expect(pgliteProtocol({})).toBeUndefined();
    expect(pgliteProtocol({ protocol: { serialize: {} }, parse: {} })).toBeUndefined();
  });
});
