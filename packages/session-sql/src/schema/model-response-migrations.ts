import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { flavorOf, type SqlFamily } from '../dialects/flavor.js';
import type { Tables } from './tables.js';

/**
 * Fields an event keeps from the model response it was made of (`modelVersion`, `avgLogprobs`,
 * `logprobsResult`, `cacheMetadata`) and live transcriptions: one nullable JSON column holding
 * those present, added to databases made before events kept them.
 */
export function modelResponseMigrations(family: SqlFamily, tables: Tables): Record<string, Migration> {
  const f = flavorOf(family);
  return {
    '0007_model_response_fields': {
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async up(db: Kysely<any>): Promise<void> {
        await db.schema.alterTable(tables.events).addColumn('response_fields', f.types.json).execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async down(db: Kysely<any>): Promise<void> {
        await db.schema.alterTable(tables.events).dropColumn('response_fields').execute();
      },
    },
  };
}
