import { CancelledError, type RunLock, type RunLockOptions, type SessionKey } from '@adk/core';
import { sleep } from '@adk/core/http';
import { type QueryResult, type RawBuilder, sql } from 'kysely';
import type { AnyKysely } from './sql-session-service.js';

/** Databases opened by `kyselyFromUrl` on a Postgres server, where several processes may share them. */
const sharedServers = new WeakSet<AnyKysely>();

export function markSharedServer(db: AnyKysely): void {
  sharedServers.add(db);
}

export function isSharedServer(db: AnyKysely): boolean {
  return sharedServers.has(db);
}

/** The text hashed into the lock's 64-bit key (JSON: unambiguous, and no NUL, which Postgres text refuses). */
export function lockName(namespace: string, key: SessionKey): string {
  return JSON.stringify([namespace, key.appName, key.userId, key.sessionId]);
}

/**
 * Whether a failure is the connection's rather than the statement's: no SQLSTATE (the socket
 * closed, pg's "Connection terminated"), class 08 (connection exception) or 57P0x (the server is
 * shutting down or the backend was terminated).
 */
function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code !== 'string' || code.startsWith('08') || code.startsWith('57P');
}

const FIRST_POLL_MS = 2;
const MAX_POLL_MS = 50;
/** Lock operations sent in one statement at most. */
const MAX_BATCH = 256;

interface LockOp {
  kind: 'lock' | 'unlock';
  name: string;
  resolve: (ok: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * One statement for a batch of operations, a row per operation in the batch's order (a function
 * scan over `unnest` yields its rows in array order, and the calls run as rows are produced).
 * `pg_advisory_unlock` answers false, with a warning, for a lock this connection does not hold.
 */
function lockStatement(batch: LockOp[]): RawBuilder<{ ok: boolean }> {
  const [only] = batch;
  if (batch.length === 1 && only)
    return only.kind === 'lock'
      ? sql`select pg_try_advisory_lock(hashtextextended(${only.name}, 0)) as ok`
      : sql`select pg_advisory_unlock(hashtextextended(${only.name}, 0)) as ok`;
  const kinds = batch.map((op) => op.kind);
  const names = batch.map((op) => op.name);
  return sql`select case when t.kind = 'lock'
        then pg_try_advisory_lock(hashtextextended(t.name, 0))
        else pg_advisory_unlock(hashtextextended(t.name, 0)) end as ok
      from unnest(${kinds}::text[], ${names}::text[]) with ordinality as t(kind, name, n)
      order by t.n`;
}

/**
 * Session run locks held across processes with Postgres session-level advisory locks.
 *
 * All locks of this process live on one dedicated connection taken from the pool for the life of
 * the service: Postgres releases every advisory lock of a connection when it closes, so a process
 * killed mid-run (kill -9) frees its sessions as soon as the server notices the dead socket. Waiting
 * is done by polling `pg_try_advisory_lock` with a short backoff, because a blocking
 * `pg_advisory_lock` would stall every other lock operation queued on the shared connection.
 * Operations queued while one statement is in flight are sent together in the next. The
 * Runner's in-process queue already serializes runs of this process, so only runs of other
 * processes ever contend here.
 */
export class AdvisoryRunLocks {
  private connection: Promise<AnyKysely> | undefined;
  private releaseConnection: (() => void) | undefined;
  private readonly held = new Map<string, number>();
  private readonly pending: LockOp[] = [];
  private flushing: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly db: AnyKysely,
    private readonly namespace: string,
  ) {}

  async acquire(key: SessionKey, options: RunLockOptions): Promise<RunLock | undefined> {
    const name = lockName(this.namespace, key);
    let delay = FIRST_POLL_MS;
    for (;;) {
      if (options.signal?.aborted)
        throw new CancelledError('The run was cancelled while waiting for its session');
      if (await this.submit('lock', name)) {
        this.held.set(name, (this.held.get(name) ?? 0) + 1);
        return { release: () => this.release(name) };
      }
      if (!options.wait) return undefined;
      await sleep(delay, options.signal).catch(() => {
        throw new CancelledError('The run was cancelled while waiting for its session');
      });
      delay = Math.min(MAX_POLL_MS, delay * 2);
    }
  }

  private async release(name: string): Promise<void> {
    const count = this.held.get(name) ?? 0;
    if (count === 0) return;
    if (count === 1) this.held.delete(name);
    else this.held.set(name, count - 1);
    await this.submit('unlock', name);
  }

  /**
   * Queues one lock operation. Operations that arrive while a statement is in flight go together in
   * the next one, in order: under load a single round trip takes and releases many sessions' locks.
   */
  private submit(kind: LockOp['kind'], name: string): Promise<boolean> {
    if (this.closed)
      return Promise.reject(
        new CancelledError('The session service was closed while a run wanted its session'),
      );
    return new Promise<boolean>((resolve, reject) => {
      this.pending.push({ kind, name, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, MAX_BATCH);
        try {
          const { rows } = await this.query(lockStatement(batch));
          batch.forEach((op, i) => {
            op.resolve(rows[i]?.ok === true);
          });
        } catch (error) {
          for (const op of batch) op.reject(error);
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }

  /** Runs a statement on the lock connection; a broken connection is replaced once. */
  private async query<R>(statement: RawBuilder<R>): Promise<QueryResult<R>> {
    const conn = await this.conn();
    try {
      return await statement.execute(conn);
    } catch (error) {
      // A statement that failed on a live connection fails again: the locks it holds stay.
      if (!isConnectionError(error)) throw error;
      // The connection goes back to the pool: it must not keep locks that nobody will release. On a
      // dead connection this fails too, and the server has released them already.
      await sql`select pg_advisory_unlock_all()`.execute(conn).catch(() => undefined);
      this.dropConnection();
      return statement.execute(await this.conn());
    }
  }

  private dropConnection(): void {
    // Locks die with their connection; the pool discards a connection whose query failed.
    this.releaseConnection?.();
    this.releaseConnection = undefined;
    this.connection = undefined;
    this.held.clear();
  }

  /** The dedicated connection, opened on first use and opened again if it was lost. */
  private conn(): Promise<AnyKysely> {
    if (this.connection) return this.connection;
    const opened = new Promise<AnyKysely>((resolveConn, rejectConn) => {
      const done = new Promise<void>((resolveDone) => {
        this.releaseConnection = resolveDone;
      });
      this.db
        .connection()
        .execute(async (conn) => {
          resolveConn(conn as AnyKysely);
          await done;
        })
        .catch((error: unknown) => {
          if (this.connection === opened) this.dropConnection();
          rejectConn(error);
        });
    });
    this.connection = opened;
    return opened;
  }

  /** Releases every lock of this process and returns the connection to its pool. */
  async close(): Promise<void> {
    this.closed = true;
    // Operations already queued finish first, so no lock is taken after the connection is cleared.
    await this.flushing;
    const conn = await this.connection?.catch(() => undefined);
    if (conn) await sql`select pg_advisory_unlock_all()`.execute(conn).catch(() => undefined);
    this.dropConnection();
  }
}
