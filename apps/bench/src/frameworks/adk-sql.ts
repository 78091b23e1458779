import type { SessionService } from '@adk/core';
import { type DriverOptions, SkipError } from './types.js';

interface SqlModule {
  SqlSessionService: { fromUrl(url: string, options?: { maxConnections?: number }): Promise<SessionService> };
}

/**
 * Opens an `@adk/session-sql` session service on PGlite (in memory) or Postgres from a URL, as its
 * README shows. Its exports are checked at run time, so a package that has not landed is a skip.
 */
export async function loadSqlSessionService(options: DriverOptions): Promise<SessionService> {
  const sql: Record<string, unknown> = await import('@adk/session-sql');
  const service = sql.SqlSessionService as Partial<SqlModule['SqlSessionService']> | undefined;
  if (typeof service?.fromUrl !== 'function') {
    throw new SkipError('@adk/session-sql does not export SqlSessionService.fromUrl yet');
  }
  const url = options.store === 'pglite' ? 'pglite://memory' : options.postgresUrl;
  if (!url) throw new SkipError('no Postgres URL');
  return (sql as unknown as SqlModule).SqlSessionService.fromUrl(url);
}
