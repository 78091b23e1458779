import { CancelledError } from '@adk/core';
import { detectFamily, flavorOf, type SqlFamily, type SqlFlavor } from './dialects/flavor.js';
import { ensureMigrated } from './schema/ensure-migrated.js';
import { tablesFor } from './schema/tables.js';
import type { AnyKysely } from './sql-session-service.js';

/** What every SQL store of this package is built on. */
export interface SqlStoreOptions {
  /** The database: Postgres (`pg`), PGlite or SQLite (`node:sqlite`) through Kysely. */
  db: AnyKysely;
  /** Prefix of the tables (default `adk_`); the stores of one database share it. */
  tablePrefix?: string;
  /** The SQL family, when it cannot be recognised from the Kysely instance's adapter. */
  dialect?: SqlFamily;
  /**
   * Run the migrations before the first query (default true). Set false when migrations are run
   * explicitly, e.g. with `migrateToLatest(db)` in a deploy step.
   */
  migrate?: boolean;
  /** Destroy `db` in close() (default false: the caller owns it). */
  destroyOnClose?: boolean;
}

/**
 * The part the session, artifact, memory and credential services share: the database, its SQL
 * family and flavour, the table prefix, migrations (once per database and prefix, however many
 * stores use it) before the first query, and close().
 */
export abstract class SqlStore {
  readonly family: SqlFamily;
  protected readonly db: AnyKysely;
  protected readonly f: SqlFlavor;
  protected readonly prefix: string;

  constructor(private readonly storeOptions: SqlStoreOptions) {
    this.db = storeOptions.db;
    this.family = storeOptions.dialect ?? detectFamily(storeOptions.db);
    this.f = flavorOf(this.family);
    this.prefix = tablesFor(storeOptions.tablePrefix).prefix;
  }

  /** Runs the migrations now (idempotent); otherwise they run before the first query. */
  async migrate(): Promise<void> {
    await ensureMigrated(this.db, this.prefix, this.family);
  }

  /** Releases the database when this store owns it (`destroyOnClose`). */
  async close(): Promise<void> {
    if (this.storeOptions.destroyOnClose) await this.db.destroy();
  }

  /**
   * Migrations (once), with the call's signal checked before and after them: a store calls it
   * before its first query, and `checkSignal` between the queries of one call. A query already sent
   * runs to its end (the drivers cannot interrupt it); an abort inside a transaction rolls it back.
   */
  protected async ready(signal?: AbortSignal): Promise<void> {
    this.checkSignal(signal);
    if (this.storeOptions.migrate !== false) await this.migrate();
    this.checkSignal(signal);
  }

  /** Throws a `CancelledError` (code `CANCELLED`, the signal's reason as cause) once `signal` aborted. */
  protected checkSignal(signal: AbortSignal | undefined): void {
    if (signal?.aborted) throw new CancelledError('The storage call was aborted', { cause: signal.reason });
  }
}
