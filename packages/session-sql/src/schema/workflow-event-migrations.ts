import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { flavorOf, type SqlFamily } from '../dialects/flavor.js';
import type { Tables } from './tables.js';

/**
 * Workflow fields of events (`output`, `nodeInfo`; `actions.route` lives in the actions JSON):
 * two nullable JSON columns, added to databases made before workflows existed.
 */
export function workflowEventMigrations(family: SqlFamily, tables: Tables): Record<string, Migration> {
  const f = flavorOf(family);
  return {
    '0005_workflow_event_fields': {
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async up(db: Kysely<any>): Promise<void> {
        await db.schema.alterTable(tables.events).addColumn('output', f.types.json).execute();
        await db.schema.alterTable(tables.events).addColumn('node_info', f.types.json).execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async down(db: Kysely<any>): Promise<void> {
        await db.schema.alterTable(tables.events).dropColumn('node_info').execute();
        await db.schema.alterTable(tables.events).dropColumn('output').execute();
      },
    },
  };
}
