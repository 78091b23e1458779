export {
  type DatabaseLocation,
  type KyselyFromUrlOptions,
  kyselyFromUrl,
  parseDatabaseUrl,
} from './connect.js';
export { createSqlStores, type SqlStores, type SqlStoresOptions } from './create-sql-stores.js';
export { detectFamily, type SqlFamily } from './dialects/flavor.js';
export {
  type NodeSqliteDatabase,
  type NodeSqliteStatement,
  nodeSqliteDatabase,
  nodeSqliteDialect,
} from './dialects/node-sqlite-dialect.js';
export {
  PgliteDialect,
  type PgliteDialectConfig,
  type PgliteLike,
  type PgliteProtocol,
  type PgliteQueryable,
  pgliteProtocol,
} from './dialects/pglite-dialect.js';
export { credentialMigrations, credentialTableFor } from './schema/credential-migrations.js';
export {
  type MigrateOptions,
  migrateToLatest,
  sessionMigrations,
  sessionMigrator,
} from './schema/migrations.js';
export { runMigrations, runTableFor } from './schema/run-migrations.js';
export { scoreMigrations, scoreTablesFor } from './schema/score-migrations.js';
export { storageMigrations } from './schema/storage-migrations.js';
export { type StorageTables, storageTablesFor } from './schema/storage-tables.js';
export { DEFAULT_TABLE_PREFIX, type Tables, tablesFor } from './schema/tables.js';
export { traceMigrations, traceTablesFor } from './schema/trace-migrations.js';
export { SqlArtifactService, type SqlArtifactServiceOptions } from './sql-artifact-service.js';
export {
  CREDENTIAL_KEY_ENV,
  CredentialKeyError,
  SqlCredentialService,
  type SqlCredentialServiceOptions,
} from './sql-credential-service.js';
export { SqlMemoryJobQueue } from './sql-memory-job-queue.js';
export {
  type MemoryEmbeddings,
  SqlMemoryService,
  type SqlMemoryServiceOptions,
} from './sql-memory-service.js';
export { SqlRunStore, type SqlRunStoreOptions } from './sql-run-store.js';
export { SqlScoreStore } from './sql-score-store.js';
export { type AnyKysely, SqlSessionService, type SqlSessionServiceOptions } from './sql-session-service.js';
export type { SqlStoreOptions } from './sql-store.js';
export { SqlTraceStore, type SqlTraceStoreOptions } from './sql-trace-store.js';
