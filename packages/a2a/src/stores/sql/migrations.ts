import type { Kysely } from 'kysely';
import { type Migration, type MigrationResultSet, Migrator } from 'kysely/migration';

/** Default prefix of the task store's tables (`a2a_tasks`, `a2a_push_configs`). */
export const DEFAULT_TASK_TABLE_PREFIX = 'a2a_';

export interface TaskTables {
  tasks: string;
  pushConfigs: string;
}

export function taskTablesFor(prefix: string = DEFAULT_TASK_TABLE_PREFIX): TaskTables {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(prefix)) {
    throw new TypeError(`Invalid table prefix "${prefix}": use letters, digits and underscores`);
  }
  return { tasks: `${prefix}tasks`, pushConfigs: `${prefix}push_configs` };
}

/**
 * The task store's schema versions, oldest first. Names sort in order and are never renamed; a
 * schema change is a new entry. Types are chosen to mean the same in Postgres, PGlite and SQLite.
 */
export function taskStoreMigrations(tables: TaskTables): Record<string, Migration> {
  const t = tables;
  return {
    '0001_initial': {
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async up(db: Kysely<any>): Promise<void> {
        await db.schema
          .createTable(t.tasks)
          .ifNotExists()
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('context_id', 'text', (c) => c.notNull())
          // NULL: created without a caller identity (auth disabled), visible to every caller.
          .addColumn('owner', 'text')
          .addColumn('state', 'text', (c) => c.notNull())
          // ms since epoch; a double holds every millisecond timestamp exactly in both families.
          .addColumn('status_time', 'double precision', (c) => c.notNull())
          .addColumn('task', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'double precision', (c) => c.notNull())
          .execute();
        // ListTasks reads tasks of one owner newest first.
        await db.schema
          .createIndex(`${t.tasks}_owner_time_idx`)
          .ifNotExists()
          .on(t.tasks)
          .columns(['owner', 'status_time desc', 'id desc'])
          .execute();
        await db.schema
          .createIndex(`${t.tasks}_context_idx`)
          .ifNotExists()
          .on(t.tasks)
          .columns(['context_id', 'status_time desc'])
          .execute();
        await db.schema
          .createTable(t.pushConfigs)
          .ifNotExists()
          .addColumn('task_id', 'text', (c) => c.notNull())
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('config', 'text', (c) => c.notNull())
          .addColumn('created_at', 'double precision', (c) => c.notNull())
          .addPrimaryKeyConstraint(`${t.pushConfigs}_pkey`, ['task_id', 'id'])
          .execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async down(db: Kysely<any>): Promise<void> {
        await db.schema.dropTable(t.pushConfigs).ifExists().execute();
        await db.schema.dropTable(t.tasks).ifExists().execute();
      },
    },
  };
}

export interface MigrateTaskStoreOptions {
  /** Table name prefix (default `a2a_`). */
  tablePrefix?: string;
}

/** A Kysely Migrator for the task store's tables, with its own migration bookkeeping tables. */
// biome-ignore lint/suspicious/noExplicitAny: Kysely's Migrator takes Kysely<any>
export function taskStoreMigrator(db: Kysely<any>, options: MigrateTaskStoreOptions = {}): Migrator {
  const prefix = options.tablePrefix ?? DEFAULT_TASK_TABLE_PREFIX;
  const migrations = taskStoreMigrations(taskTablesFor(prefix));
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: `${prefix}task_migrations`,
    migrationLockTableName: `${prefix}task_migrations_lock`,
  });
}

/** Brings the task store's tables to the latest version; throws if a migration fails. */
export async function migrateTaskStore(
  // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migrator takes Kysely<any>
  db: Kysely<any>,
  options: MigrateTaskStoreOptions = {},
): Promise<MigrationResultSet> {
  const result = await taskStoreMigrator(db, options).migrateToLatest();
  if (result.error) throw result.error;
  return result;
}
