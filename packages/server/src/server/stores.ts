import { resolve } from 'node:path';
import {
  type ArtifactService,
  ConfigError,
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemorySessionService,
  type MemoryJobQueue,
  type MemoryService,
  type RunStore,
  type ScoreStore,
  type SessionService,
  type TraceRetention,
  type TraceStore,
} from '@adk/core';
import type { AdkServerLogger } from './logger.js';
import { openTaskEventBus, sqlReadiness, type TaskEventBusLike } from './scale-out.js';

/** The A2A task store shape the server passes to `@adk/a2a` (kept structural: a2a is optional). */
export type TaskStoreLike = object;

export interface Stores {
  sessionService: SessionService;
  artifactService: ArtifactService;
  memoryService: MemoryService;
  /** Run records beside the sessions when they are in SQL (else each runner keeps them in memory). */
  runStore: RunStore | undefined;
  /** Finished spans in the sessions' database, when they are in SQL. */
  traceStore: TraceStore | undefined;
  /** Scorer results in the sessions' database, when they are in SQL. */
  scoreStore?: ScoreStore | undefined;
  /** The job outbox that score jobs go through, in the sessions' database when it is SQL. */
  scoreQueue?: MemoryJobQueue | undefined;
  /** A2A task store on the same database, when the server opened one. */
  taskStore: TaskStoreLike | undefined;
  /** Carries A2A task updates between instances sharing a Postgres database, when there is one. */
  taskEventBus: TaskEventBusLike | undefined;
  /** Where sessions live, for the start-up line (passwords redacted). */
  location: string;
  /** Throws when the session store cannot be reached (or, for SQL, has migrations pending). */
  ping(): Promise<void>;
  /** Closes what the server opened (never services passed in). */
  close(): Promise<void>;
}

export interface StoreOptions {
  sessionService?: SessionService;
  artifactService?: ArtifactService;
  memoryService?: MemoryService;
  dataDir?: string;
  databaseUrl?: string;
  databasePoolSize?: number;
  traceRetention?: TraceRetention;
  /** A memory job outbox beside SQL sessions (see `AdkServerOptions.memoryJobs`). */
  memoryJobs?: boolean;
  a2a: boolean;
}

/**
 * `postgres://…` and `sqlite:…` URLs are used as they are; `pglite:` URLs too; anything else is a
 * PGlite data folder.
 */
export function normalizeDatabaseUrl(url: string): string {
  if (/^(postgres|postgresql|sqlite|pglite):/i.test(url)) return url;
  return `pglite://${resolve(url)}`;
}

function redact(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
}

type SessionSql = typeof import('@adk/session-sql');

async function importSessionSql(): Promise<SessionSql> {
  try {
    return await import('@adk/session-sql');
  } catch (error) {
    throw new ConfigError(
      'Persistent sessions need the optional peer dependency @adk/session-sql (install it), or pass a sessionService',
      { cause: error },
    );
  }
}

/** Opens the stores the options ask for: given services first, else SQL on `databaseUrl` / PGlite in `dataDir`. */
export async function openStores(options: StoreOptions, logger: AdkServerLogger): Promise<Stores> {
  const useSql = options.databaseUrl !== undefined || options.sessionService === undefined;
  if (!useSql) {
    const memoryService = options.memoryService ?? new InMemoryMemoryService();
    const sessionService = options.sessionService ?? new InMemorySessionService();
    const artifactService = options.artifactService ?? new InMemoryArtifactService();
    if (!options.artifactService)
      logger.warn('Artifacts are kept in memory (no databaseUrl): they are lost on restart.');
    return {
      sessionService,
      artifactService,
      memoryService,
      runStore: undefined,
      traceStore: undefined,
      taskStore: undefined,
      taskEventBus: undefined,
      location: sessionService.constructor.name,
      ping: () => pingSessions(sessionService),
      close: async () => undefined,
    };
  }

  const url = normalizeDatabaseUrl(
    options.databaseUrl ?? resolve(options.dataDir ?? resolve(process.cwd(), '.adk'), 'pglite'),
  );
  const sql = await importSessionSql();
  // Sessions, artifacts and memory on one connection, migrated once; services passed in win.
  const opened = await sql.createSqlStores(url, {
    ...(options.databasePoolSize === undefined ? {} : { maxConnections: options.databasePoolSize }),
    ...(options.traceRetention ? { traces: { retention: options.traceRetention } } : {}),
    memoryJobs: options.memoryJobs !== false,
  });
  const sessionService = options.sessionService ?? opened.sessions;
  const artifactService = options.artifactService ?? opened.artifacts;
  const memory = options.memoryService ?? opened.memory;

  let taskStore: TaskStoreLike | undefined;
  let taskEventBus: TaskEventBusLike | undefined;
  if (options.a2a) {
    try {
      const { SqlTaskStore } = await import('@adk/a2a/sql');
      taskStore = new SqlTaskStore({ db: opened.db });
      taskEventBus = await openTaskEventBus(url);
    } catch {
      // @adk/a2a is optional; without it the A2A routes are off (see createAdkServer).
    }
  }
  // Structural on purpose: @adk/session-sql is an optional peer and must not reach the declarations.
  const migrated = sqlReadiness(() =>
    sql.sessionMigrator(opened.db, { dialect: opened.family }).getMigrations(),
  );

  return {
    sessionService,
    artifactService,
    memoryService: memory,
    runStore: opened.runs,
    traceStore: opened.traces,
    scoreStore: opened.scores,
    scoreQueue: new sql.SqlMemoryJobQueue({ db: opened.db, dialect: opened.family, migrate: false }),
    taskStore,
    taskEventBus,
    location: redact(url),
    ping: async () => {
      await pingSessions(sessionService);
      await migrated();
    },
    close: async () => {
      await taskEventBus?.close?.().catch(() => undefined);
      await opened.close();
    },
  };
}

/** A cheap read through the SessionService contract, so any store can be probed. */
async function pingSessions(service: SessionService): Promise<void> {
  await service.listSessions({ appName: '__adk_ready__', userId: '__adk_ready__', pageSize: 1 });
}
