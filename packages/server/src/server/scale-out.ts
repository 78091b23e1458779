import { ServerError } from './errors.js';

/**
 * A Postgres server URL: the one store several server processes share. PGlite and SQLite are
 * embedded in one process, so they need neither cross-process task events nor run locks.
 */
export function isSharedPostgres(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** The A2A task event bus shape the server hands to `@adk/a2a` (structural: a2a is optional). */
export interface TaskEventBusLike {
  close?(): Promise<void>;
}

/**
 * On a shared Postgres, task updates travel between instances over LISTEN/NOTIFY (one extra
 * connection per process, opened on first use), so streaming and `tasks/resubscribe` work on any
 * instance. Undefined elsewhere, or without @adk/a2a.
 */
export async function openTaskEventBus(url: string): Promise<TaskEventBusLike | undefined> {
  if (!isSharedPostgres(url)) return undefined;
  try {
    const { PostgresTaskEventBus } = await import('@adk/a2a');
    return new PostgresTaskEventBus({ connectionString: url });
  } catch {
    return undefined;
  }
}

/**
 * Readiness of the SQL stores: the database answers, and every migration this build knows has been
 * applied. The migration check reads the migration table until it has once been found current (a
 * later release only adds migrations, which this build does not need); the database is asked every
 * time.
 */
export function sqlReadiness(
  migrations: () => Promise<readonly { name: string; executedAt?: Date | undefined }[]>,
): () => Promise<void> {
  let current = false;
  return async () => {
    if (current) return;
    const pending = (await migrations()).filter((m) => m.executedAt === undefined).map((m) => m.name);
    if (pending.length > 0)
      throw new ServerError(
        'NOT_READY',
        `The database is not migrated: ${pending.join(', ')} pending (an instance with migrations on applies them at start-up)`,
      );
    current = true;
  };
}
