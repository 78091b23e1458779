import { type Kysely, sql } from 'kysely';
import type { Migration } from 'kysely/migration';
import { flavorOf, type SqlFamily } from '../dialects/flavor.js';
import type { Tables } from './tables.js';

/** The tables of finished spans and trace summaries, with the same prefix as the session tables. */
export function traceTablesFor(tables: Tables): { spans: string; traces: string } {
  return { spans: `${tables.prefix}spans`, traces: `${tables.prefix}traces` };
}

/**
 * Spans and trace summaries (`SqlTraceStore`). Times are integer microseconds since the epoch in
 * plain bigint columns: listings sort and page on them, and retention compares them.
 */
export function traceMigrations(family: SqlFamily, tables: Tables): Record<string, Migration> {
  const f = flavorOf(family);
  const t = traceTablesFor(tables);
  return {
    '0009_traces': {
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async up(db: Kysely<any>): Promise<void> {
        await db.schema
          .createTable(t.traces)
          .ifNotExists()
          .addColumn('trace_id', 'text', (c) => c.notNull().primaryKey())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('app_name', 'text')
          .addColumn('user_id', 'text')
          .addColumn('session_id', 'text')
          .addColumn('invocation_id', 'text')
          .addColumn('start_us', 'bigint', (c) => c.notNull())
          .addColumn('end_us', 'bigint', (c) => c.notNull())
          .addColumn('duration_us', 'bigint', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('span_count', 'integer', (c) => c.notNull())
          .addColumn('error_count', 'integer', (c) => c.notNull())
          .addColumn('input_tokens', 'bigint', (c) => c.notNull())
          .addColumn('output_tokens', 'bigint', (c) => c.notNull())
          .addColumn('cost_usd', 'double precision', (c) => c.notNull().defaultTo(0))
          .execute();
        // The newest traces (the Traces view's first page), overall and per app, user, session.
        await db.schema
          .createIndex(`${t.traces}_start_idx`)
          .ifNotExists()
          .on(t.traces)
          .columns(['start_us desc', 'trace_id desc'])
          .execute();
        await db.schema
          .createIndex(`${t.traces}_app_idx`)
          .ifNotExists()
          .on(t.traces)
          .columns(['app_name', 'start_us desc', 'trace_id desc'])
          .execute();
        await db.schema
          .createIndex(`${t.traces}_session_idx`)
          .ifNotExists()
          .on(t.traces)
          .columns(['session_id', 'start_us desc'])
          .execute();
        await db.schema
          .createIndex(`${t.traces}_invocation_idx`)
          .ifNotExists()
          .on(t.traces)
          .columns(['invocation_id'])
          .execute();

        await db.schema
          .createTable(t.spans)
          .ifNotExists()
          .addColumn('trace_id', 'text', (c) => c.notNull())
          .addColumn('span_id', 'text', (c) => c.notNull())
          .addColumn('parent_span_id', 'text')
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('session_id', 'text')
          .addColumn('event_id', 'text')
          .addColumn('start_us', 'bigint', (c) => c.notNull())
          .addColumn('end_us', 'bigint', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('status_message', 'text')
          .addColumn('attributes', f.types.json, (c) => c.notNull())
          .addPrimaryKeyConstraint(`${t.spans}_pkey`, ['trace_id', 'span_id'])
          .execute();
        await db.schema
          .createIndex(`${t.spans}_session_idx`)
          .ifNotExists()
          .on(t.spans)
          .columns(['session_id', 'trace_id'])
          .execute();
        await db.schema
          .createIndex(`${t.spans}_event_idx`)
          .ifNotExists()
          .on(t.spans)
          .columns(['event_id'])
          .execute();
        await db.schema
          .createIndex(`${t.spans}_start_idx`)
          .ifNotExists()
          .on(t.spans)
          .columns(['start_us'])
          .execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async down(db: Kysely<any>): Promise<void> {
        await db.schema.dropTable(t.spans).ifExists().execute();
        await db.schema.dropTable(t.traces).ifExists().execute();
      },
    },
  };
}

/**
 * Fewer index entries per span row, so that persisting spans costs the database less on every
 * turn: the spans' start index goes (retention deletes by the traces' start, and the rare span
 * whose trace has no summary by a scan every prune), and the event-id index holds only the spans
 * that carry one (model and tool calls), as the event lookup never asks for a null id.
 */
export function traceIndexMigrations(tables: Tables): Record<string, Migration> {
  const t = traceTablesFor(tables);
  return {
    '0013_span_indexes': {
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async up(db: Kysely<any>): Promise<void> {
        await db.schema.dropIndex(`${t.spans}_start_idx`).ifExists().execute();
        await db.schema.dropIndex(`${t.spans}_event_idx`).ifExists().execute();
        await db.schema
          .createIndex(`${t.spans}_event_idx`)
          .on(t.spans)
          .column('event_id')
          .where(sql.ref('event_id'), 'is not', null)
          .execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async down(db: Kysely<any>): Promise<void> {
        await db.schema.dropIndex(`${t.spans}_event_idx`).ifExists().execute();
        await db.schema.createIndex(`${t.spans}_event_idx`).on(t.spans).column('event_id').execute();
        await db.schema.createIndex(`${t.spans}_start_idx`).on(t.spans).column('start_us').execute();
      },
    },
  };
}

/**
 * `0015`: the spans' session index holds only the spans written before their trace's summary (a
 * trace still running, or one whose root never ended) or in another session than it. A span
 * written with its summary, in its session, is stored without a session: the session view finds
 * it through the summary's session index.
 */
export function spanSessionIndexMigrations(tables: Tables): Record<string, Migration> {
  const t = traceTablesFor(tables);
  const index = `${t.spans}_session_idx`;
  /** The session index made again: partial (`0015`), or over every span (as `0009` made it). */
  // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
  const rebuild = async (db: Kysely<any>, partial: boolean): Promise<void> => {
    await db.schema.dropIndex(index).ifExists().execute();
    const create = db.schema.createIndex(index).on(t.spans).columns(['session_id', 'trace_id']);
    await (partial ? create.where(sql.ref('session_id'), 'is not', null) : create).execute();
  };
  return {
    '0015_span_session_index': {
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async up(db: Kysely<any>): Promise<void> {
        await rebuild(db, true);
      },
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async down(db: Kysely<any>): Promise<void> {
        // Every span gets its session back (its trace's), as the earlier code reads it from the row.
        await sql`update ${sql.table(t.spans)} set session_id = (select x.session_id from ${sql.table(t.traces)} x
          where x.trace_id = ${sql.table(t.spans)}.trace_id) where session_id is null`.execute(db);
        await rebuild(db, false);
      },
    },
  };
}
