import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { flavorOf, type SqlFamily } from '../dialects/flavor.js';
import type { Tables } from './tables.js';

/**
 * Time travel (docs/architecture.md §5.5): a session keeps the session-scoped state it was created
 * with (a rewind restores it) and where a fork came from. Both are null on older rows.
 */
export function forkMigrations(family: SqlFamily, tables: Tables): Record<string, Migration> {
  const f = flavorOf(family);
  return {
    '0006_session_fork': {
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async up(db: Kysely<any>): Promise<void> {
        await db.schema.alterTable(tables.sessions).addColumn('initial_state', f.types.json).execute();
        await db.schema.alterTable(tables.sessions).addColumn('forked_from', f.types.json).execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async down(db: Kysely<any>): Promise<void> {
        await db.schema.alterTable(tables.sessions).dropColumn('forked_from').execute();
        await db.schema.alterTable(tables.sessions).dropColumn('initial_state').execute();
      },
    },
  };
}
