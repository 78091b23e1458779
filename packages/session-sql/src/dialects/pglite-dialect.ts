import { setImmediate as nextMacrotask } from 'node:timers/promises';
import {
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  PGliteAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { MAX_PREPARED_STATEMENTS, StatementNames } from './statement-names.js';

/** The part of a PGlite transaction this dialect uses (structural, so PGlite stays optional). */
export interface PgliteQueryable {
  query<T>(
    query: string,
    params?: unknown[],
    options?: { rowMode?: 'object' | 'array' },
  ): Promise<{ rows: T[]; affectedRows?: number }>;
}

/** The part of `@electric-sql/pglite`'s `PGlite` this dialect uses. */
export interface PgliteLike extends PgliteQueryable {
  readonly closed: boolean;
  readonly waitReady: Promise<void>;
  transaction<T>(callback: (tx: PgliteQueryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A PGlite message from the backend (structural). */
export type PgliteBackendMessage = { name: string };

/**
 * What running named prepared statements on PGlite takes: the protocol entry points of the PGlite
 * instance, and the message helpers `@electric-sql/pglite` exports (`protocol.serialize`,
 * `parse.parseResults`, `parse.parseDescribeStatementResults`).
 */
export interface PgliteProtocol {
  serialize: {
    parse(options: { name?: string; text: string; types?: number[] }): Uint8Array;
    describe(options: { type: 'S' | 'P'; name?: string }): Uint8Array;
    bind(options: { statement?: string; values?: (string | null)[] }): Uint8Array;
    execute(options: Record<string, never>): Uint8Array;
    close(options: { type: 'S' | 'P'; name?: string }): Uint8Array;
    sync(): Uint8Array;
  };
  parseResults(
    messages: PgliteBackendMessage[],
    parsers: Record<number | string, unknown>,
    options?: { rowMode?: 'object' | 'array' },
  ): { rows: unknown[]; affectedRows?: number }[];
  parseDescribeStatementResults(messages: PgliteBackendMessage[]): number[];
}

/**
 * The protocol helpers of an imported `@electric-sql/pglite` module, for `PgliteDialect`'s
 * `protocol` option: `new PgliteDialect({ pglite, protocol: pgliteProtocol(await import('@electric-sql/pglite')) })`.
 * Undefined for a PGlite release without them (statements then run unnamed).
 */
export function pgliteProtocol(module: {
  protocol?: { serialize?: unknown };
  parse?: { parseResults?: unknown; parseDescribeStatementResults?: unknown };
}): PgliteProtocol | undefined {
  const serialize = module.protocol?.serialize;
  const parseResults = module.parse?.parseResults;
  const parseDescribeStatementResults = module.parse?.parseDescribeStatementResults;
  if (
    typeof serialize !== 'object' ||
    serialize === null ||
    typeof parseResults !== 'function' ||
    typeof parseDescribeStatementResults !== 'function'
  )
    return undefined;
  return {
    serialize: serialize as PgliteProtocol['serialize'],
    parseResults: parseResults as PgliteProtocol['parseResults'],
    parseDescribeStatementResults:
      parseDescribeStatementResults as PgliteProtocol['parseDescribeStatementResults'],
  };
}

/** The protocol-level part of a PGlite instance that prepared statements use. */
interface PgliteWire {
  execProtocolStream(message: Uint8Array, options: { syncToFs: boolean }): Promise<PgliteBackendMessage[]>;
  /** PGlite's query lock (what its own queries hold while they talk to the backend). */
  runExclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** PGlite's transaction lock, which its `query` takes first outside a transaction. */
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
  syncToFs(): Promise<void>;
  serializers: Record<number | string, ((value: unknown) => string) | undefined>;
  parsers: Record<number | string, unknown>;
}

export interface PgliteDialectConfig {
  /** A PGlite instance, or a function that makes one on first use. */
  pglite: PgliteLike | (() => PgliteLike | Promise<PgliteLike>);
  /**
   * With PGlite's protocol helpers, statements that repeat run as named prepared statements (parsed
   * and planned once), as `kyselyFromUrl` sets up; without, every statement goes through `query`.
   */
  protocol?: PgliteProtocol;
  /** Close the PGlite instance when the Kysely instance is destroyed. Default true. */
  closeOnDestroy?: boolean;
}

/**
 * Kysely dialect for embedded PGlite. PGlite is one connection, so the driver hands it to one
 * query or transaction at a time: a transaction holds it until commit or rollback and queries from
 * elsewhere wait instead of running inside someone else's transaction.
 */
export class PgliteDialect implements Dialect {
  constructor(private readonly config: PgliteDialectConfig) {}

  createAdapter(): DialectAdapter {
    return new PGliteAdapter();
  }

  createDriver(): Driver {
    return new PgliteDriver(this.config);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }

  // biome-ignore lint/suspicious/noExplicitAny: Kysely's Dialect contract takes Kysely<any>
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
}

class PgliteDriver implements Driver {
  private pglite: PgliteLike | undefined;
  private connection: PgliteConnection | undefined;
  private readonly mutex = new Mutex();

  constructor(private readonly config: PgliteDialectConfig) {}

  async init(): Promise<void> {
    const source = this.config.pglite;
    this.pglite = typeof source === 'function' ? await source() : source;
    if (this.pglite.closed) throw new Error('The PGlite instance is already closed');
    await this.pglite.waitReady;
    this.connection = new PgliteConnection(this.pglite, preparedWire(this.pglite, this.config.protocol));
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.mutex.lock();
    if (!this.connection) {
      this.mutex.unlock();
      throw new Error('PgliteDriver used before init or after destroy');
    }
    return this.connection;
  }

  async releaseConnection(): Promise<void> {
    this.mutex.unlock();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await (connection as PgliteConnection).begin(settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PgliteConnection).end(true);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PgliteConnection).end(false);
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteIdent(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${quoteIdent(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${quoteIdent(name)}`));
  }

  async destroy(): Promise<void> {
    const pglite = this.pglite;
    this.connection = undefined;
    this.pglite = undefined;
    if (pglite && !pglite.closed && this.config.closeOnDestroy !== false) await pglite.close();
  }
}

const ROLLBACK = Symbol('rollback');

/** The PGlite instance as a protocol peer, when it and the helpers support prepared statements. */
function preparedWire(
  pglite: PgliteLike,
  protocol: PgliteProtocol | undefined,
): { wire: PgliteWire; protocol: PgliteProtocol } | undefined {
  const wire = pglite as Partial<PgliteWire>;
  if (
    !protocol ||
    typeof wire.execProtocolStream !== 'function' ||
    typeof wire.runExclusive !== 'function' ||
    typeof wire._runExclusiveTransaction !== 'function' ||
    typeof wire.syncToFs !== 'function' ||
    typeof wire.serializers !== 'object' ||
    typeof wire.parsers !== 'object'
  )
    return undefined;
  return { wire: wire as PgliteWire, protocol };
}

/**
 * Named statements live in the PGlite instance, not in a dialect: every dialect on one instance
 * (a Kysely rebuilt on it, or two at once) shares the names and what is prepared.
 */
interface PreparedState {
  names: StatementNames;
  /** Statements prepared on the instance, with their parameter types. */
  types: Map<string, number[]>;
}
const preparedByInstance = new WeakMap<object, PreparedState>();

function preparedStateOf(pglite: object): PreparedState {
  let state = preparedByInstance.get(pglite);
  if (!state) {
    state = { names: new StatementNames(MAX_PREPARED_STATEMENTS), types: new Map() };
    preparedByInstance.set(pglite, state);
  }
  return state;
}

class PgliteConnection implements DatabaseConnection {
  private tx: PgliteQueryable | undefined;
  private finish: ((commit: boolean) => void) | undefined;
  private done: Promise<unknown> | undefined;
  private readonly prepared: PreparedState;

  constructor(
    private readonly pglite: PgliteLike,
    private readonly peer: { wire: PgliteWire; protocol: PgliteProtocol } | undefined,
  ) {
    this.prepared = preparedStateOf(pglite);
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const name = this.peer ? this.prepared.names.nameFor(compiled.sql) : undefined;
    const result =
      name !== undefined && this.peer
        ? await this.runPrepared<R>(this.peer, name, compiled.sql, compiled.parameters)
        : await (this.tx ?? this.pglite).query<R>(compiled.sql, [...compiled.parameters], {
            rowMode: 'object',
          });
    // PGlite answers through promise callbacks only, never giving the event loop a turn: many
    // callers in a row would keep Node in microtasks and leave sockets and timers waiting for
    // seconds. One macrotask per query lets them run.
    await nextMacrotask();
    return {
      rows: result.rows ?? [],
      ...(result.affectedRows != null ? { numAffectedRows: BigInt(result.affectedRows) } : {}),
    };
  }

  /**
   * Runs a named statement through PGlite's protocol entry point, the way its own `query` runs an
   * unnamed one (parameters serialized by type, results parsed by PGlite's parsers), but parsing and
   * describing the statement only the first time. Inside this dialect's transaction it runs under
   * PGlite's query lock like the transaction's own queries; outside one it first takes PGlite's
   * transaction lock and syncs to the file system after, as `query` does.
   */
  private async runPrepared<R>(
    peer: { wire: PgliteWire; protocol: PgliteProtocol },
    name: string,
    text: string,
    parameters: readonly unknown[],
  ): Promise<{ rows: R[]; affectedRows?: number }> {
    const { wire, protocol } = peer;
    const { serialize } = protocol;
    const send = (message: Uint8Array) => wire.execProtocolStream(message, { syncToFs: false });
    const inTransaction = this.tx !== undefined;
    const run = () =>
      wire.runExclusive(async () => {
        let types = this.prepared.types.get(name);
        if (!types) {
          types = await prepare();
          this.prepared.types.set(name, types);
        }
        return execute(types);
      });
    const prepare = async (): Promise<number[]> => {
      const described: PgliteBackendMessage[] = [];
      let parsed = false;
      try {
        await send(serialize.parse({ name, text }));
        parsed = true;
        described.push(...(await send(serialize.describe({ type: 'S', name }))));
      } catch (error) {
        await send(serialize.sync()).catch(() => undefined);
        // A statement parsed but not described would hold its name unrecorded: let it go (after
        // the Sync, since the backend skips everything after an error until one).
        if (parsed) {
          await send(serialize.close({ type: 'S', name })).catch(() => undefined);
          await send(serialize.sync()).catch(() => undefined);
        }
        throw error;
      }
      described.push(...(await send(serialize.sync())));
      return protocol.parseDescribeStatementResults(described);
    };
    const execute = async (types: number[]) => {
      const values = parameters.map((value, i) => {
        if (value === null || value === undefined) return null;
        const serializer = wire.serializers[types[i] ?? -1];
        return serializer ? serializer(value) : String(value);
      });
      const messages: PgliteBackendMessage[] = [];
      try {
        messages.push(...(await send(serialize.bind({ statement: name, values }))));
        messages.push(...(await send(serialize.describe({ type: 'P' }))));
        messages.push(...(await send(serialize.execute({}))));
      } finally {
        messages.push(...(await send(serialize.sync())));
      }
      if (!inTransaction) await wire.syncToFs();
      const [result] = protocol.parseResults(messages, wire.parsers, { rowMode: 'object' });
      return {
        rows: (result?.rows ?? []) as R[],
        ...(result?.affectedRows != null ? { affectedRows: result.affectedRows } : {}),
      };
    };
    // Outside this dialect's transaction, wait like PGlite's own query for any transaction another
    // user of the instance has open, so the statement never runs (or syncs) inside it.
    return inTransaction ? run() : wire._runExclusiveTransaction(run);
  }

  // biome-ignore lint/correctness/useYield: streaming is not supported by PGlite
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming queries are not supported by PGlite');
  }

  /**
   * Runs the transaction through PGlite's own `transaction()`, which also keeps other users of the
   * same PGlite instance out until it ends.
   */
  async begin(settings: TransactionSettings): Promise<void> {
    let started!: (tx: PgliteQueryable) => void;
    let failedToStart!: (error: unknown) => void;
    const ready = new Promise<PgliteQueryable>((resolve, reject) => {
      started = resolve;
      failedToStart = reject;
    });
    const outcome = new Promise<boolean>((resolve) => {
      this.finish = resolve;
    });
    this.done = this.pglite.transaction(async (tx) => {
      started(tx);
      if (!(await outcome)) throw ROLLBACK;
    });
    this.done.catch(failedToStart);
    this.tx = await ready;
    const characteristics: string[] = [];
    if (settings.isolationLevel) characteristics.push(`isolation level ${settings.isolationLevel}`);
    if (settings.accessMode) characteristics.push(settings.accessMode);
    if (characteristics.length > 0) await this.tx.query(`set transaction ${characteristics.join(', ')}`);
  }

  async end(commit: boolean): Promise<void> {
    const done = this.done;
    this.finish?.(commit);
    this.tx = undefined;
    this.finish = undefined;
    this.done = undefined;
    try {
      await done;
    } catch (error) {
      if (error !== ROLLBACK && commit) throw error;
    }
  }
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A FIFO lock: one holder at a time. */
class Mutex {
  private tail: Promise<void> = Promise.resolve();
  private release: (() => void) | undefined;

  async lock(): Promise<void> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    this.release = release;
  }

  unlock(): void {
    const release = this.release;
    this.release = undefined;
    release?.();
  }
}
