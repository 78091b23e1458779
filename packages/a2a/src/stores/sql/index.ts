/**
 * `@adk/a2a/sql`: the SQL task store. A subpath of its own so that `@adk/a2a` never loads Kysely
 * (an optional peer) for users who keep tasks in memory.
 */
export {
  DEFAULT_TASK_TABLE_PREFIX,
  type MigrateTaskStoreOptions,
  migrateTaskStore,
  type TaskTables,
  taskStoreMigrations,
  taskStoreMigrator,
  taskTablesFor,
} from './migrations.js';
export { SqlTaskStore, type SqlTaskStoreOptions } from './sql-task-store.js';
