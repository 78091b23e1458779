import { type KyselyFromUrlOptions, kyselyFromUrl, splitConnectionOptions } from './connect.js';
import { detectFamily, type SqlFamily } from './dialects/flavor.js';
import { migrateToLatest } from './schema/migrations.js';
import { tablesFor } from './schema/tables.js';
import { SqlArtifactService, type SqlArtifactServiceOptions } from './sql-artifact-service.js';
import { SqlMemoryJobQueue } from './sql-memory-job-queue.js';
import { SqlMemoryService, type SqlMemoryServiceOptions } from './sql-memory-service.js';
import { SqlRunStore } from './sql-run-store.js';
import { SqlScoreStore } from './sql-score-store.js';
import { type AnyKysely, SqlSessionService, type SqlSessionServiceOptions } from './sql-session-service.js';
import { SqlTraceStore, type SqlTraceStoreOptions } from './sql-trace-store.js';

export interface SqlStoresOptions extends KyselyFromUrlOptions {
  /** Prefix of every table (default `adk_`). */
  tablePrefix?: string;
  /** Options of the session service (besides the shared connection, prefix and migrations). */
  sessions?: Omit<SqlSessionServiceOptions, 'db' | 'tablePrefix' | 'dialect' | 'migrate' | 'destroyOnClose'>;
  /** Options of the artifact service, e.g. `maxArtifactBytes`. */
  artifacts?: Omit<
    SqlArtifactServiceOptions,
    'db' | 'tablePrefix' | 'dialect' | 'migrate' | 'destroyOnClose'
  >;
  /** Options of the memory service, e.g. `embeddings`. */
  memory?: Omit<SqlMemoryServiceOptions, 'db' | 'tablePrefix' | 'dialect' | 'migrate' | 'destroyOnClose'>;
  /** Options of the trace store, e.g. `retention`. */
  traces?: Omit<SqlTraceStoreOptions, 'db' | 'tablePrefix' | 'dialect' | 'migrate' | 'destroyOnClose'>;
  /** Run the migrations now (default true); false when a deploy step runs them. */
  migrate?: boolean;
  /**
   * Give the memory service a job outbox in the same database (`memoryJobs` below), so a Runner
   * enqueues each committed turn for indexing and runs the jobs (default false; `@adk/server`
   * turns it on).
   */
  memoryJobs?: boolean;
}

/** Sessions, artifacts and memory on one database connection. */
export interface SqlStores {
  sessions: SqlSessionService;
  artifacts: SqlArtifactService;
  memory: SqlMemoryService;
  /** Run records (`Runner`'s `runStore`), beside the sessions. */
  runs: SqlRunStore;
  /** Finished spans and trace summaries, beside the sessions. */
  traces: SqlTraceStore;
  /** The memory job outbox (also `memory.jobs`), with `memoryJobs: true`. */
  memoryJobs: SqlMemoryJobQueue | undefined;
  /** Scorer results (`ScorersPlugin`'s store), beside the sessions. */
  scores: SqlScoreStore;
  /** The shared Kysely instance. */
  db: AnyKysely;
  family: SqlFamily;
  /** Closes the connection (once, for all three). */
  close(): Promise<void>;
}

/**
 * Opens the database at `url` (`pglite://…`, `sqlite://…`, `postgres://…`), runs the migrations
 * once and returns the three stores sharing that connection.
 */
export async function createSqlStores(
  url = 'pglite://memory',
  options: SqlStoresOptions = {},
): Promise<SqlStores> {
  const tablePrefix = tablesFor(options.tablePrefix).prefix;
  const db = await kyselyFromUrl(url, splitConnectionOptions(options).connection);
  let family: SqlFamily;
  try {
    family = detectFamily(db);
    if (options.migrate !== false) await migrateToLatest(db, { tablePrefix, dialect: family });
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const shared = { db, tablePrefix, dialect: family, migrate: false, destroyOnClose: false } as const;
  const sessions = new SqlSessionService({ ...options.sessions, ...shared });
  const memoryJobs = options.memoryJobs ? new SqlMemoryJobQueue(shared) : undefined;
  let closing: Promise<void> | undefined;
  return {
    sessions,
    artifacts: new SqlArtifactService({ ...options.artifacts, ...shared }),
    memory: new SqlMemoryService({
      ...options.memory,
      ...(memoryJobs && !options.memory?.jobs ? { jobs: memoryJobs } : {}),
      ...shared,
    }),
    memoryJobs,
    // Run takeover relies on the sessions' run locks: both follow the same setting.
    runs: new SqlRunStore({
      ...shared,
      ...(options.sessions?.runLocks === undefined ? {} : { runLocks: options.sessions.runLocks }),
    }),
    traces: new SqlTraceStore({ ...options.traces, ...shared }),
    scores: new SqlScoreStore(shared),
    db,
    family,
    close() {
      // The session service first (it may hold lock connections), then the shared connection.
      closing ??= sessions.close().finally(() => db.destroy());
      return closing;
    },
  };
}
