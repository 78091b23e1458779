import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { flavorOf, type SqlFamily } from '../dialects/flavor.js';
import type { Tables } from './tables.js';

/** The table of run records, with the same prefix as the session tables. */
export function runTableFor(tables: Tables): string {
  return `${tables.prefix}runs`;
}

/** Migration of the run table; it rides the session migrations under its own name. */
export function runMigrations(family: SqlFamily, tables: Tables): Record<string, Migration> {
  const f = flavorOf(family);
  const table = runTableFor(tables);
  return {
    '0006_runs': {
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async up(db: Kysely<any>): Promise<void> {
        await db.schema
          .createTable(table)
          .ifNotExists()
          .addColumn('app_name', 'text', (c) => c.notNull())
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('session_id', 'text', (c) => c.notNull())
          .addColumn('invocation_id', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('background', f.types.bool, (c) => c.notNull())
          .addColumn('owner', 'text')
          .addColumn('heartbeat_at', f.types.time)
          .addColumn('cancel_requested', f.types.bool)
          .addColumn('created_at', f.types.time, (c) => c.notNull())
          .addColumn('started_at', f.types.time)
          .addColumn('ended_at', f.types.time)
          .addColumn('error_code', 'text')
          .addColumn('error_message', 'text')
          .addColumn('input', f.types.json, (c) => c.notNull())
          .addPrimaryKeyConstraint(`${table}_pkey`, ['app_name', 'id'])
          .execute();
        // A session's runs, newest first (the runs panel, double-texting checks).
        await db.schema
          .createIndex(`${table}_session_idx`)
          .ifNotExists()
          .on(table)
          .columns(['app_name', 'user_id', 'session_id', 'created_at desc', 'id desc'])
          .execute();
        // An app's runs newest first, and queued/running ones for workers and recovery.
        await db.schema
          .createIndex(`${table}_app_idx`)
          .ifNotExists()
          .on(table)
          .columns(['app_name', 'created_at desc', 'id desc'])
          .execute();
        await db.schema
          .createIndex(`${table}_status_idx`)
          .ifNotExists()
          .on(table)
          .columns(['status', 'app_name', 'created_at'])
          .execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async down(db: Kysely<any>): Promise<void> {
        await db.schema.dropTable(table).ifExists().execute();
      },
    },
  };
}

/** Tokens and cost of a run's model calls, written when it ends (JSON, null before). */
export function runUsageMigrations(family: SqlFamily, tables: Tables): Record<string, Migration> {
  const f = flavorOf(family);
  const table = runTableFor(tables);
  return {
    '0011_run_usage': {
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async up(db: Kysely<any>): Promise<void> {
        await db.schema.alterTable(table).addColumn('usage', f.types.json).execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async down(db: Kysely<any>): Promise<void> {
        await db.schema.alterTable(table).dropColumn('usage').execute();
      },
    },
  };
}
