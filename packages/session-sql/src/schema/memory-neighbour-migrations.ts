import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { storageTablesFor } from './storage-tables.js';
import type { Tables } from './tables.js';

/**
 * An index for the neighbouring turns of a search hit (one session of one user, by time): without
 * it the planners walked the user's whole `(app, user, kind, timestamp)` index to find a session's
 * two neighbours, which made the per-turn recall step grow with the user's history.
 */
export function memoryNeighbourMigrations(tables: Tables): Record<string, Migration> {
  const m = storageTablesFor(tables.prefix).memoryEntries;
  return {
    '0012_memory_session_time_index': {
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async up(db: Kysely<any>): Promise<void> {
        await db.schema
          .createIndex(`${m}_session_time_idx`)
          .ifNotExists()
          .on(m)
          .columns(['app_name', 'user_id', 'session_id', 'kind', 'timestamp'])
          .execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async down(db: Kysely<any>): Promise<void> {
        await db.schema.dropIndex(`${m}_session_time_idx`).ifExists().execute();
      },
    },
  };
}
