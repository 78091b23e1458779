import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { flavorOf, type SqlFamily } from '../dialects/flavor.js';
import type { Tables } from './tables.js';

/** The table of tool credentials (encrypted), with the same prefix as the session tables. */
export function credentialTableFor(tables: Tables): string {
  return `${tables.prefix}credentials`;
}

/**
 * Migration of the credential table. It rides the session migrations (same migration table), under
 * its own name, so it runs on databases made before it existed.
 */
export function credentialMigrations(family: SqlFamily, tables: Tables): Record<string, Migration> {
  const f = flavorOf(family);
  const table = credentialTableFor(tables);
  return {
    '0004_tool_credentials': {
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async up(db: Kysely<any>): Promise<void> {
        await db.schema
          .createTable(table)
          .ifNotExists()
          .addColumn('app_name', 'text', (c) => c.notNull())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('credential_key', 'text', (c) => c.notNull())
          // base64 of iv (12 bytes) | auth tag (16 bytes) | AES-256-GCM ciphertext of the credential JSON.
          .addColumn('ciphertext', 'text', (c) => c.notNull())
          // Which key encrypted the row (a short hash of it), so a wrong key is reported as such.
          .addColumn('key_id', 'text', (c) => c.notNull())
          .addColumn('updated_at', f.types.time, (c) => c.notNull())
          .addPrimaryKeyConstraint(`${table}_pkey`, ['app_name', 'user_id', 'credential_key'])
          .execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async down(db: Kysely<any>): Promise<void> {
        await db.schema.dropTable(table).ifExists().execute();
      },
    },
  };
}
