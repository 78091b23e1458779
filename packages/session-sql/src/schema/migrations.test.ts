import { createEvent, isAdkError } from '@adk/core';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteTitle, testDatabases } from '../__fixtures__/databases.js';
import {
  type AnyKysely,
  migrateToLatest,
  SqlSessionService,
  sessionMigrations,
  sessionMigrator,
  tablesFor,
} from '../index.js';

for (const target of testDatabases()) {
  describe.skipIf(target.skipReason !== undefined)(suiteTitle(target, 'migrations'), () => {
    let db: AnyKysely;
    beforeAll(async () => {
      db = await target.open();
    });
    afterAll(async () => {
      await db?.destroy();
    });
    const prefix = (name: string) => `m_${name}_${process.pid}_`;

    it('are versioned and idempotent: a second run applies nothing', async () => {
      const tablePrefix = prefix('idem');
      const names = Object.keys(
        sessionMigrations(target.name === 'sqlite' ? 'sqlite' : 'postgres', tablesFor(tablePrefix)),
      );
      expect(names.slice(0, 3)).toEqual(['0001_initial', '0002_artifacts', '0003_memory']);
      const first = await migrateToLatest(db, { tablePrefix });
      expect(first.results?.map((r) => [r.migrationName, r.status])).toEqual(
        names.map((n) => [n, 'Success']),
      );
      const second = await migrateToLatest(db, { tablePrefix });
      expect(second.results).toEqual([]);
      const applied = await sessionMigrator(db, { tablePrefix }).getMigrations();
      expect(applied.map((m) => [m.name, m.executedAt !== undefined])).toEqual(names.map((n) => [n, true]));
    });

    it('create the four tables with the configured prefix and the schema changes', async () => {
      const tablePrefix = prefix('schema');
      await migrateToLatest(db, { tablePrefix });
      const tables = await db.introspection.getTables();
      const mine = tables.filter((t) => t.name.startsWith(tablePrefix));
      expect(mine.map((t) => t.name)).toEqual(
        expect.arrayContaining(
          [
            'app_states',
            'events',
            'migrations',
            'migrations_lock',
            'sessions',
            'user_states',
            'artifacts',
            'artifact_names',
            'memory_entries',
          ].map((n) => tablePrefix + n),
        ),
      );
      const events = mine.find((t) => t.name === `${tablePrefix}events`);
      const columns = new Map(events?.columns.map((c) => [c.name, c]));
      expect(columns.has('finish_reason')).toBe(true);
      // Ids and messages are unbounded text, not varchar(255).
      for (const name of ['id', 'session_id', 'error_message', 'invocation_id']) {
        expect(columns.get(name)?.dataType.toLowerCase()).toBe('text');
      }
      if (target.name !== 'sqlite') {
        expect(columns.get('content')?.dataType).toBe('jsonb');
        expect(columns.get('timestamp')?.dataType).toBe('timestamptz');
      }
    });

    it('run on first use by default, and can be left to an explicit step', async () => {
      const tablePrefix = prefix('lazy');
      const manual = new SqlSessionService({ db, tablePrefix, migrate: false });
      await expect(manual.createSession({ appName: 'a', userId: 'u' })).rejects.toThrow();
      await migrateToLatest(db, { tablePrefix });
      await manual.createSession({ appName: 'a', userId: 'u', sessionId: 'after-migrate' });
      const auto = new SqlSessionService({ db, tablePrefix: prefix('auto') });
      expect((await auto.createSession({ appName: 'a', userId: 'u', sessionId: 'x' })).id).toBe('x');
    });

    it('stores separate data per prefix in the same database', async () => {
      const one = new SqlSessionService({ db, tablePrefix: prefix('one') });
      const two = new SqlSessionService({ db, tablePrefix: prefix('two') });
      await one.createSession({ appName: 'a', userId: 'u', sessionId: 's' });
      expect(await two.getSession({ appName: 'a', userId: 'u', sessionId: 's' })).toBeUndefined();
      await two.createSession({ appName: 'a', userId: 'u', sessionId: 's' });
    });

    it('events are removed with their session by the foreign key too', async () => {
      const tablePrefix = prefix('fk');
      const service = new SqlSessionService({ db, tablePrefix });
      const session = await service.createSession({ appName: 'a', userId: 'u', sessionId: 's' });
      await service.appendEvent(session, createEvent({ invocationId: 'i', author: 'agent' }));
      // Bypass the service: delete the session row alone.
      await sql`delete from ${sql.table(`${tablePrefix}sessions`)}`.execute(db);
      const left = await sql<{
        n: number | string;
      }>`select count(*) as n from ${sql.table(`${tablePrefix}events`)}`.execute(db);
      expect(Number(left.rows[0]?.n)).toBe(0);
    });

    it('rejects a table prefix that is not a plain identifier', () => {
      let error: unknown;
      try {
        new SqlSessionService({ db, tablePrefix: 'bad; drop' });
      } catch (e) {
        error = e;
      }
      expect(isAdkError(error, 'VALIDATION')).toBe(true);
    });
  });
}
