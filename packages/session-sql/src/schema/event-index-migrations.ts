import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Tables } from './tables.js';

/** The index of events by invocation id that `0001_initial` made and `0014` drops. */
export function eventInvocationIndex(tables: Tables): string {
  return `${tables.events}_invocation_idx`;
}

/**
 * The events' invocation-id index goes. No query reads events by invocation id: a session's log is
 * read by session and sequence number (rewinds and forks included), and runs and traces keep their
 * own invocation indexes. Every appended event paid an entry in it at a random place of the index,
 * and a fork one entry per copied event.
 */
export function eventIndexMigrations(tables: Tables): Record<string, Migration> {
  const index = eventInvocationIndex(tables);
  return {
    '0014_event_invocation_index': {
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async up(db: Kysely<any>): Promise<void> {
        await db.schema.dropIndex(index).ifExists().execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async down(db: Kysely<any>): Promise<void> {
        await db.schema.createIndex(index).ifNotExists().on(tables.events).column('invocation_id').execute();
      },
    },
  };
}
