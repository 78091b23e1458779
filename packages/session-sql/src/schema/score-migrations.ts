import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlFamily } from '../dialects/flavor.js';
import type { Tables } from './tables.js';

/** The tables of score results and sent score alerts, with the same prefix as the session tables. */
export function scoreTablesFor(tables: Tables): { scores: string; scoreAlerts: string } {
  return { scores: `${tables.prefix}scores`, scoreAlerts: `${tables.prefix}score_alerts` };
}

/**
 * Scorer results (`SqlScoreStore`). Times are integer milliseconds since the epoch in bigint
 * columns (windows are computed on them); a result is unique per (app, scorer, invocation).
 */
export function scoreMigrations(_family: SqlFamily, tables: Tables): Record<string, Migration> {
  const t = scoreTablesFor(tables);
  return {
    '0010_scores': {
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async up(db: Kysely<any>): Promise<void> {
        await db.schema
          .createTable(t.scores)
          .ifNotExists()
          .addColumn('id', 'text', (c) => c.notNull().primaryKey())
          .addColumn('app_name', 'text', (c) => c.notNull())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('session_id', 'text', (c) => c.notNull())
          .addColumn('invocation_id', 'text', (c) => c.notNull())
          .addColumn('trace_id', 'text')
          .addColumn('scorer_name', 'text', (c) => c.notNull())
          .addColumn('scorer_version', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('score', 'double precision')
          .addColumn('reason', 'text')
          .addColumn('error', 'text')
          .addColumn('duration_ms', 'bigint', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        // One result per scorer and turn: a retried job's second save is dropped.
        await db.schema
          .createIndex(`${t.scores}_turn_idx`)
          .ifNotExists()
          .unique()
          .on(t.scores)
          .columns(['app_name', 'scorer_name', 'invocation_id'])
          .execute();
        // Listings and windows per app and scorer, newest first.
        await db.schema
          .createIndex(`${t.scores}_scorer_time_idx`)
          .ifNotExists()
          .on(t.scores)
          .columns(['app_name', 'scorer_name', 'created_at'])
          .execute();
        await db.schema
          .createIndex(`${t.scores}_app_time_idx`)
          .ifNotExists()
          .on(t.scores)
          .columns(['app_name', 'created_at'])
          .execute();
        await db.schema
          .createIndex(`${t.scores}_invocation_idx`)
          .ifNotExists()
          .on(t.scores)
          .columns(['invocation_id'])
          .execute();

        await db.schema
          .createTable(t.scoreAlerts)
          .ifNotExists()
          .addColumn('key', 'text', (c) => c.notNull().primaryKey())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async down(db: Kysely<any>): Promise<void> {
        await db.schema.dropTable(t.scoreAlerts).ifExists().execute();
        await db.schema.dropTable(t.scores).ifExists().execute();
      },
    },
  };
}
