import { type Kysely, sql } from 'kysely';
import type { Migration } from 'kysely/migration';
import { flavorOf, type SqlFamily } from '../dialects/flavor.js';
import { storageTablesFor } from './storage-tables.js';
import type { Tables } from './tables.js';

/**
 * The memory contract's columns (kind, source events, fact validity and supersession, keywords,
 * a content key for fact dedupe, Float32 vector blobs) and the `memory_jobs` outbox
 * (docs/decisions/0034-memory-stores-and-jobs.md). A memory's id is its `event_id` column: the
 * event's id for a turn, an assigned id for an observation or a fact (session '' when it has none).
 */
export function memoryContractMigrations(family: SqlFamily, tables: Tables): Record<string, Migration> {
  const f = flavorOf(family);
  const pg = family === 'postgres';
  const t = storageTablesFor(tables.prefix);
  const jobs = `${tables.prefix}memory_jobs`;
  const columns: [string, ReturnType<typeof sql> | 'text' | 'bigint'][] = [
    ['source_event_ids', f.types.json],
    ['valid_from', 'bigint'],
    ['supersedes', 'text'],
    ['keywords', 'text'],
    ['content_key', 'text'],
    ['custom_metadata', f.types.json],
    ['vector_blob', pg ? sql`bytea` : sql`blob`],
  ];
  return {
    '0008_memory_contract': {
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async up(db: Kysely<any>): Promise<void> {
        const m = t.memoryEntries;
        await db.schema
          .alterTable(m)
          .addColumn('kind', 'text', (c) => c.notNull().defaultTo('turn'))
          .execute();
        for (const [name, type] of columns) await db.schema.alterTable(m).addColumn(name, type).execute();
        await db.schema
          .createIndex(`${m}_user_kind_idx`)
          .ifNotExists()
          .on(m)
          .columns(['app_name', 'user_id', 'kind', 'timestamp'])
          .execute();
        await db.schema
          .createIndex(`${m}_supersedes_idx`)
          .ifNotExists()
          .on(m)
          .columns(['app_name', 'user_id', 'supersedes'])
          .execute();
        await db.schema
          .createIndex(`${m}_content_key_idx`)
          .ifNotExists()
          .on(m)
          .columns(['app_name', 'user_id', 'content_key'])
          .execute();
        await db.schema
          .createTable(jobs)
          .ifNotExists()
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('app_name', 'text', (c) => c.notNull())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('session_id', 'text')
          .addColumn('event_ids', f.types.json, (c) => c.notNull())
          .addColumn('payload', f.types.json)
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('run_after', 'bigint', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('claimed_by', 'text')
          .addColumn('lease_until', 'bigint')
          .addColumn('last_error', 'text')
          .execute();
        await db.schema
          .createIndex(`${jobs}_ready_idx`)
          .ifNotExists()
          .on(jobs)
          .columns(['status', 'run_after'])
          .execute();
        // Enqueue is idempotent by (kind, event id): one row per pair.
        await db.schema
          .createTable(`${jobs}_events`)
          .ifNotExists()
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('event_id', 'text', (c) => c.notNull())
          .addColumn('job_id', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint(`${jobs}_events_pkey`, ['kind', 'event_id'])
          .execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async down(db: Kysely<any>): Promise<void> {
        await db.schema.dropTable(`${jobs}_events`).ifExists().execute();
        await db.schema.dropTable(jobs).ifExists().execute();
        const m = t.memoryEntries;
        for (const idx of ['user_kind_idx', 'supersedes_idx', 'content_key_idx'])
          await db.schema.dropIndex(`${m}_${idx}`).ifExists().execute();
        for (const [name] of [...columns].reverse()) await db.schema.alterTable(m).dropColumn(name).execute();
        await db.schema.alterTable(m).dropColumn('kind').execute();
      },
    },
  };
}
