import { resolve } from 'node:path';
import {
  type ArtifactService,
  ConfigError,
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemorySessionService,
  type MemoryService,
  type SessionService,
} from '@adk/core';
import type { AdkServerLogger } from './logger.js';

/** The A2A task store shape the server passes to `@adk/a2a` (kept structural: a2a is optional). */
export type TaskStoreLike = object;

export interface Stores {
  sessionService: SessionService;
  artifactService: ArtifactService;
  memoryService: MemoryService;
  /** A2A task store on the same database, when the server opened one. */
  taskStore: TaskStoreLike | undefined;
  /** Where sessions live, for the start-up line (passwords redacted). */
  location: string;
  /** Throws when the session store cannot be reached. */
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
  const memoryService = options.memoryService ?? new InMemoryMemoryService();
  const useSql = options.databaseUrl !== undefined || options.sessionService === undefined;
  if (!useSql) {
    const sessionService = options.sessionService ?? new InMemorySessionService();
    const artifactService = options.artifactService ?? new InMemoryArtifactService();
    if (!options.artifactService) logger.warn('Artifacts are kept in memory: they are lost on restart.');
    return {
      sessionService,
      artifactService,
      memoryService,
      taskStore: undefined,
      location: sessionService.constructor.name,
      ping: () => pingSessions(sessionService),
      close: async () => undefined,
    };
  }

  const url = normalizeDatabaseUrl(
    options.databaseUrl ?? resolve(options.dataDir ?? resolve(process.cwd(), '.adk'), 'pglite'),
  );
  const sql = await importSessionSql();
  const db = await sql.kyselyFromUrl(url);
  const opened: { close(): Promise<void> }[] = [];
  let sessionService = options.sessionService;
  if (!sessionService) {
    const service = new sql.SqlSessionService({ db });
    await service.migrate();
    opened.push({ close: () => service.close() });
    sessionService = service;
  }

  let artifactService = options.artifactService;
  if (!artifactService) {
    // SqlArtifactService lands in @adk/session-sql separately; use it when the installed version has it.
    const SqlArtifactService = (sql as Record<string, unknown>).SqlArtifactService as
      | (new (o: {
          db: unknown;
        }) => ArtifactService & { close?(): Promise<void> })
      | undefined;
    if (SqlArtifactService) {
      const service = new SqlArtifactService({ db });
      opened.push({ close: async () => service.close?.() });
      artifactService = service;
    } else {
      logger.warn(
        'Artifacts are kept in memory (this @adk/session-sql has no SqlArtifactService): they are lost on restart.',
      );
      artifactService = new InMemoryArtifactService();
    }
  }

  let taskStore: TaskStoreLike | undefined;
  if (options.a2a) {
    try {
      const { SqlTaskStore } = await import('@adk/a2a/sql');
      taskStore = new SqlTaskStore({ db });
    } catch {
      // @adk/a2a is optional; without it the A2A routes are off (see createAdkServer).
    }
  }

  const service = sessionService;
  return {
    sessionService: service,
    artifactService,
    memoryService,
    taskStore,
    location: redact(url),
    ping: () => pingSessions(service),
    close: async () => {
      const results = await Promise.allSettled(opened.map((o) => o.close()));
      await db.destroy().catch(() => undefined);
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw (failed as PromiseRejectedResult).reason;
    },
  };
}

/** A cheap read through the SessionService contract, so any store can be probed. */
async function pingSessions(service: SessionService): Promise<void> {
  await service.listSessions({ appName: '__adk_ready__', userId: '__adk_ready__', pageSize: 1 });
}
