import type { SqlFamily } from '../dialects/flavor.js';
import type { AnyKysely } from '../sql-session-service.js';
import { migrateToLatest } from './migrations.js';

/** Migration runs per database and prefix, so the artifact and memory stores migrate once. */
const runs = new WeakMap<AnyKysely, Map<string, Promise<unknown>>>();

export async function ensureMigrated(db: AnyKysely, prefix: string, family: SqlFamily): Promise<void> {
  let perDb = runs.get(db);
  if (!perDb) {
    perDb = new Map();
    runs.set(db, perDb);
  }
  let running = perDb.get(prefix);
  if (!running) {
    running = migrateToLatest(db, { tablePrefix: prefix, dialect: family });
    perDb.set(prefix, running);
    running.catch(() => perDb.delete(prefix));
  }
  await running;
}
