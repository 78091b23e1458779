import { sql } from 'kysely';
import { describe, expect, inject, it } from 'vitest';
import { suiteTitle, testDatabases } from './__fixtures__/databases.js';
import { kyselyFromUrl, migrateToLatest, SqlSessionService, tablesFor } from './index.js';

const target = testDatabases().find((db) => db.name === 'postgres');
if (!target) throw new Error('the postgres test database is missing');

// Several server instances starting together on one fresh database: the migrations run once, under
// the migrator's lock, and every instance starts.
describe.skipIf(target.skipReason !== undefined)(suiteTitle(target, 'instances starting together'), () => {
  it('four processes migrating one empty database at once all succeed, and the schema is created once', async () => {
    const admin = await target.open();
    const name = `start_${process.pid}_${Date.now()}`;
    await sql`create database ${sql.id(name)}`.execute(admin);
    const url = new URL(inject('postgres').url ?? '');
    url.pathname = `/${name}`;
    const instances = await Promise.all(Array.from({ length: 4 }, () => kyselyFromUrl(url.toString())));
    try {
      const results = await Promise.allSettled(instances.map((db) => migrateToLatest(db)));
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
      const service = new SqlSessionService({ db: instances[0] as (typeof instances)[0] });
      const session = await service.createSession({ appName: 'a', userId: 'u' });
      expect(session.id).toBeTruthy();
      const { rows } = await sql<{
        n: string;
      }>`select count(*) as n from ${sql.table(tablesFor().migrations)}`.execute(
        instances[1] as (typeof instances)[1],
      );
      expect(Number(rows[0]?.n)).toBeGreaterThan(0);
    } finally {
      await Promise.all(instances.map((db) => db.destroy()));
      await sql`drop database if exists ${sql.id(name)}`.execute(admin);
      await admin.destroy();
    }
  });
});
