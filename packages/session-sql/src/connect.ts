import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '@adk/core';
import { Kysely, PostgresDialect } from 'kysely';
import { nodeSqliteDialect } from './dialects/node-sqlite-dialect.js';
import { preparingClient } from './dialects/pg-prepared.js';
import { PgliteDialect, type PgliteLike, pgliteProtocol } from './dialects/pglite-dialect.js';
import { MAX_PREPARED_STATEMENTS } from './dialects/statement-names.js';
import { markSharedServer } from './run-locks.js';
import type { AnyKysely } from './sql-session-service.js';
import { type ExtensibleSqliteDatabase, loadSqliteVec, locateSqliteVec } from './sqlite-vec.js';

/** Where a database URL points. */
export type DatabaseLocation =
  | { kind: 'postgres'; url: string }
  | { kind: 'pglite'; dataDir: string | undefined }
  | { kind: 'sqlite'; path: string };

const MEMORY = new Set(['', 'memory', ':memory:', 'memory:']);

/**
 * Parses `postgres://…` / `postgresql://…`, `pglite://memory` / `pglite://path/to/dir`
 * (`pglite:///abs/dir` for an absolute path) and `sqlite://:memory:` / `sqlite://path/to/file.db`.
 */
export function parseDatabaseUrl(url: string): DatabaseLocation {
  const match = /^([a-z][a-z0-9+.-]*):(?:\/\/)?(.*)$/i.exec(url);
  const scheme = match?.[1]?.toLowerCase();
  const rest = match?.[2] ?? '';
  switch (scheme) {
    case 'postgres':
    case 'postgresql':
      return { kind: 'postgres', url };
    case 'pglite':
      return { kind: 'pglite', dataDir: MEMORY.has(rest) ? undefined : decodeURIComponent(rest) };
    case 'sqlite':
      return { kind: 'sqlite', path: MEMORY.has(rest) ? ':memory:' : decodeURIComponent(rest) };
    default:
      throw new ConfigError(
        `Unsupported database URL ${JSON.stringify(redact(url))}: use postgres://…, pglite://memory, pglite://<dir> or sqlite://<file>`,
      );
  }
}

export interface KyselyFromUrlOptions {
  /** Postgres pool size (default: pg's default, 10). */
  maxConnections?: number;
  /**
   * Postgres and PGlite: run repeated statements as named prepared statements (default true), so
   * the database parses and plans each once per connection. Turn it off behind a transaction-mode
   * pooler that does not support them (PgBouncer before 1.21, or with `max_prepared_statements = 0`).
   */
  preparedStatements?: boolean;
  /**
   * SQLite: load the `sqlite-vec` extension when it is installed (default true), for vector search
   * inside SQLite; without it vectors are scanned in JS.
   */
  sqliteVec?: boolean;
}

/** The connection options of a `fromUrl` call, apart from the service's own. */
export function splitConnectionOptions<T extends KyselyFromUrlOptions>(
  options: T,
): { connection: KyselyFromUrlOptions; rest: Omit<T, keyof KyselyFromUrlOptions> } {
  const { maxConnections, preparedStatements, sqliteVec, ...rest } = options;
  return {
    connection: {
      ...(maxConnections === undefined ? {} : { maxConnections }),
      ...(preparedStatements === undefined ? {} : { preparedStatements }),
      ...(sqliteVec === undefined ? {} : { sqliteVec }),
    },
    rest,
  };
}

/**
 * Builds a Kysely instance from a URL. Drivers are imported here, on demand, so only the one used
 * must be installed: `pg` for Postgres, `@electric-sql/pglite` for PGlite; SQLite uses Node's
 * built-in `node:sqlite`.
 */
export async function kyselyFromUrl(url: string, options: KyselyFromUrlOptions = {}): Promise<AnyKysely> {
  const location = parseDatabaseUrl(url);
  switch (location.kind) {
    case 'postgres': {
      const pg = await importDriver<typeof import('pg')>('pg', 'postgres://');
      const Pool = pg.default?.Pool ?? pg.Pool;
      const Client = pg.default?.Client ?? pg.Client;
      const pool = new Pool({
        connectionString: location.url,
        ...(options.maxConnections ? { max: options.maxConnections } : {}),
        ...(options.preparedStatements === false
          ? {}
          : { Client: preparingClient(Client, MAX_PREPARED_STATEMENTS) }),
      });
      // A connection the server drops (restart, failover, pg_terminate_backend) emits 'error' on its
      // client; unhandled, that would crash the process. The failure still reaches the query that
      // used it, and the pool replaces the connection.
      pool.on('error', ignoreDroppedConnection);
      pool.on('connect', (client) => client.on('error', ignoreDroppedConnection));
      const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
      markSharedServer(db);
      return db;
    }
    case 'pglite': {
      const pgliteModule = await importDriver<typeof import('@electric-sql/pglite')>(
        '@electric-sql/pglite',
        'pglite://',
      );
      const { PGlite } = pgliteModule;
      const dataDir = location.dataDir;
      if (dataDir !== undefined) await mkdir(resolve(dataDir), { recursive: true });
      const pglite: PgliteLike = dataDir === undefined ? new PGlite() : new PGlite(resolve(dataDir));
      const protocol = options.preparedStatements === false ? undefined : pgliteProtocol(pgliteModule);
      return new Kysely<unknown>({
        dialect: new PgliteDialect({ pglite, ...(protocol ? { protocol } : {}) }),
      });
    }
    case 'sqlite': {
      const { DatabaseSync } = await importDriver<typeof import('node:sqlite')>('node:sqlite', 'sqlite://');
      const file = location.path;
      if (file !== ':memory:') await mkdir(dirname(resolve(file)), { recursive: true });
      const vec = options.sqliteVec === false ? undefined : await locateSqliteVec();
      const db = new DatabaseSync(file === ':memory:' ? file : resolve(file), {
        ...(vec?.loaded ? { allowExtension: true } : {}),
      });
      if (vec?.loaded) loadSqliteVec(db as unknown as ExtensibleSqliteDatabase, vec);
      db.exec('PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;');
      if (file !== ':memory:') db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
      return new Kysely<unknown>({ dialect: nodeSqliteDialect(db) });
    }
  }
}

async function importDriver<T>(specifier: string, scheme: string): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    throw new ConfigError(
      specifier === 'node:sqlite'
        ? `${scheme} URLs need node:sqlite (Node ≥ 22.5)`
        : `${scheme} URLs need the optional peer dependency ${specifier}: install it next to @adk/session-sql`,
      { cause: error },
    );
  }
}

function redact(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
}

function ignoreDroppedConnection(): void {}
