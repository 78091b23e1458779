import { sql } from 'kysely';
import { inject } from 'vitest';
import { type AnyKysely, detectFamily, kyselyFromUrl } from '../index.js';

/** A database the suites run against; `skipReason` when it is not available here. */
export interface TestDatabase {
  name: 'pglite' | 'sqlite' | 'postgres';
  skipReason: string | undefined;
  open(): Promise<AnyKysely>;
}

export function testDatabases(): TestDatabase[] {
  const postgres = inject('postgres');
  return [
    { name: 'pglite', skipReason: undefined, open: () => kyselyFromUrl('pglite://memory') },
    { name: 'sqlite', skipReason: undefined, open: () => kyselyFromUrl('sqlite://:memory:') },
    {
      name: 'postgres',
      skipReason: postgres.url ? undefined : postgres.skipReason,
      open: () => kyselyFromUrl(postgres.url ?? '', { maxConnections: 20 }),
    },
  ];
}

/** describe title that says why a suite is skipped. */
export function suiteTitle(db: TestDatabase, title: string): string {
  if (db.skipReason) console.warn(`[session-sql] ${db.name}: ${title} skipped: ${db.skipReason}`);
  return db.skipReason ? `${db.name}: ${title} (skipped: ${db.skipReason})` : `${db.name}: ${title}`;
}

/** The indexes of `table` with their definitions (SQLite's `sqlite_master`, else `pg_indexes`). */
export async function tableIndexes(
  db: AnyKysely,
  table: string,
): Promise<{ name: string; definition: string }[]> {
  const { rows } =
    detectFamily(db) === 'sqlite'
      ? await sql<{ name: string; definition: string }>`select name, sql as definition from sqlite_master
          where type = 'index' and tbl_name = ${table} and sql is not null`.execute(db)
      : await sql<{ name: string; definition: string }>`select indexname as name, indexdef as definition
          from pg_indexes where tablename = ${table}`.execute(db);
  return rows;
}
