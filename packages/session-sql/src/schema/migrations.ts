import { type Kysely, sql } from 'kysely';
import { type Migration, type MigrationResultSet, Migrator } from 'kysely/migration';
import { detectFamily, flavorOf, type SqlFamily } from '../dialects/flavor.js';
import { credentialMigrations } from './credential-migrations.js';
import { eventIndexMigrations, eventInvocationIndex } from './event-index-migrations.js';
import { forkMigrations } from './fork-migrations.js';
import { memoryContractMigrations } from './memory-contract-migrations.js';
import { memoryNeighbourMigrations } from './memory-neighbour-migrations.js';
import { modelResponseMigrations } from './model-response-migrations.js';
import { runMigrations, runUsageMigrations } from './run-migrations.js';
import { scoreMigrations } from './score-migrations.js';
import { storageMigrations } from './storage-migrations.js';
import { type Tables, tablesFor } from './tables.js';
import { spanSessionIndexMigrations, traceIndexMigrations, traceMigrations } from './trace-migrations.js';
import { workflowEventMigrations } from './workflow-event-migrations.js';

export interface MigrateOptions {
  /** Table name prefix (default `adk_`). */
  tablePrefix?: string;
  /** The SQL family, when it cannot be recognised from the Kysely instance. */
  dialect?: SqlFamily;
}

/**
 * The schema's versions, oldest first. Names sort in order and are never renamed; a change to the
 * schema is a new entry.
 */
export function sessionMigrations(family: SqlFamily, tables: Tables): Record<string, Migration> {
  const f = flavorOf(family);
  const t = tables;
  return {
    '0001_initial': {
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async up(db: Kysely<any>): Promise<void> {
        await db.schema
          .createTable(t.sessions)
          .ifNotExists()
          .addColumn('app_name', 'text', (c) => c.notNull())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('state', f.types.json, (c) => c.notNull().defaultTo(sql`'{}'`))
          .addColumn('created_at', f.types.time, (c) => c.notNull())
          .addColumn('updated_at', f.types.time, (c) => c.notNull())
          .addPrimaryKeyConstraint(`${t.sessions}_pkey`, ['app_name', 'user_id', 'id'])
          .execute();
        // "List sessions of a user by last update" reads this index in order.
        await db.schema
          .createIndex(`${t.sessions}_user_updated_idx`)
          .ifNotExists()
          .on(t.sessions)
          .columns(['app_name', 'user_id', 'updated_at desc', 'id'])
          .execute();

        await db.schema
          .createTable(t.events)
          .ifNotExists()
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('app_name', 'text', (c) => c.notNull())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('session_id', 'text', (c) => c.notNull())
          // Position in the session's log; appends to one session are serialized, so it is dense.
          .addColumn('seq', 'bigint', (c) => c.notNull())
          .addColumn('invocation_id', 'text', (c) => c.notNull())
          .addColumn('author', 'text', (c) => c.notNull())
          .addColumn('branch', 'text')
          .addColumn('timestamp', f.types.time, (c) => c.notNull())
          .addColumn('content', f.types.json)
          .addColumn('actions', f.types.json, (c) => c.notNull().defaultTo(sql`'{}'`))
          .addColumn('partial', f.types.bool)
          .addColumn('turn_complete', f.types.bool)
          .addColumn('interrupted', f.types.bool)
          .addColumn('finish_reason', 'text')
          .addColumn('error_code', 'text')
          .addColumn('error_message', 'text')
          .addColumn('custom_metadata', f.types.json)
          .addColumn('usage_metadata', f.types.json)
          .addColumn('citation_metadata', f.types.json)
          .addColumn('grounding_metadata', f.types.json)
          .addColumn('long_running_tool_ids', f.types.textArray, (c) =>
            c.defaultTo(family === 'postgres' ? sql`'{}'` : sql`'[]'`),
          )
          .addPrimaryKeyConstraint(`${t.events}_pkey`, ['id', 'app_name', 'user_id', 'session_id'])
          .addForeignKeyConstraint(
            `${t.events}_session_fkey`,
            ['app_name', 'user_id', 'session_id'],
            t.sessions,
            ['app_name', 'user_id', 'id'],
            (c) => c.onDelete('cascade'),
          )
          .execute();
        await db.schema
          .createIndex(`${t.events}_session_seq_idx`)
          .ifNotExists()
          .unique()
          .on(t.events)
          .columns(['app_name', 'user_id', 'session_id', 'seq'])
          .execute();
        await db.schema
          .createIndex(eventInvocationIndex(t))
          .ifNotExists()
          .on(t.events)
          .column('invocation_id')
          .execute();

        await db.schema
          .createTable(t.appStates)
          .ifNotExists()
          .addColumn('app_name', 'text', (c) => c.notNull().primaryKey())
          .addColumn('state', f.types.json, (c) => c.notNull().defaultTo(sql`'{}'`))
          .addColumn('updated_at', f.types.time, (c) => c.notNull())
          .execute();

        await db.schema
          .createTable(t.userStates)
          .ifNotExists()
          .addColumn('app_name', 'text', (c) => c.notNull())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('state', f.types.json, (c) => c.notNull().defaultTo(sql`'{}'`))
          .addColumn('updated_at', f.types.time, (c) => c.notNull())
          .addPrimaryKeyConstraint(`${t.userStates}_pkey`, ['app_name', 'user_id'])
          .execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async down(db: Kysely<any>): Promise<void> {
        await db.schema.dropTable(t.events).ifExists().execute();
        await db.schema.dropTable(t.userStates).ifExists().execute();
        await db.schema.dropTable(t.appStates).ifExists().execute();
        await db.schema.dropTable(t.sessions).ifExists().execute();
      },
    },
    // Artifact and memory tables (0002_artifacts, 0003_memory).
    ...storageMigrations(family, tables),
    // Encrypted tool credentials (0004_tool_credentials).
    ...credentialMigrations(family, tables),
    // Workflow event fields (0005_workflow_event_fields).
    ...workflowEventMigrations(family, tables),
    // Run records (0006_runs).
    ...runMigrations(family, tables),
    // Initial state and fork origin of sessions (0006_session_fork); listed in name order, the
    // order the migrator applies them.
    ...forkMigrations(family, tables),
    // What events keep of model responses (0007_model_response_fields).
    ...modelResponseMigrations(family, tables),
    // The memory contract and the memory job outbox (0008_memory_contract).
    ...memoryContractMigrations(family, tables),
    // Spans and trace summaries (0009_traces).
    ...traceMigrations(family, tables),
    // Scorer results and sent score alerts (0010_scores).
    ...scoreMigrations(family, tables),
    // Tokens and cost on run records (0011_run_usage).
    ...runUsageMigrations(family, tables),
    // The neighbouring turns of a memory search hit (0012_memory_session_time_index).
    ...memoryNeighbourMigrations(tables),
    // Fewer index entries per span row (0013_span_indexes).
    ...traceIndexMigrations(tables),
    // No index of events by invocation id, which nothing reads (0014_event_invocation_index).
    ...eventIndexMigrations(tables),
    // Spans written with their trace's summary leave the session index (0015_span_session_index).
    ...spanSessionIndexMigrations(tables),
  };
}

/** The migrator for the session tables (its bookkeeping lives in `<prefix>migrations`). */
export function sessionMigrator(db: Kysely<unknown>, options: MigrateOptions = {}): Migrator {
  const tables = tablesFor(options.tablePrefix);
  const family = options.dialect ?? detectFamily(db);
  const migrations = sessionMigrations(family, tables);
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: tables.migrations,
    migrationLockTableName: tables.migrationsLock,
    // Migrations of different stores are independent tables: one added later under an earlier
    // name (by a parallel branch of work) still runs on databases that already have newer ones.
    allowUnorderedMigrations: true,
  });
}

/**
 * Brings the session tables to the latest version. Idempotent: applied versions are recorded and
 * skipped; concurrent callers on Postgres are serialized by Kysely's migration lock.
 */
export async function migrateToLatest(
  db: Kysely<unknown>,
  options: MigrateOptions = {},
): Promise<MigrationResultSet> {
  const result = await sessionMigrator(db, options).migrateToLatest();
  if (result.error) throw result.error;
  return result;
}
