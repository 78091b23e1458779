import { randomUUID } from 'node:crypto';
import { tryParseJson } from '@adk/core';
import type { StreamResponse } from '../protocol/types.js';

/**
 * Carries live task updates between server processes that share one task store, so a client
 * streaming or resubscribing on one instance sees a task that runs on another. Only the process
 * that runs a task publishes its updates (and sends its push notifications); the others only
 * forward them to their own subscribers.
 */
export interface TaskEventBus {
  /** Sends an update of a task run by this process to the other processes. */
  publish(taskId: string, item: StreamResponse): Promise<void>;
  /**
   * Calls `listener` with updates of `taskId` published by other processes: the update itself, or
   * `undefined` when it was too large to carry and the listener should read the task from the store.
   * Resolves once updates are being received; the returned function stops them.
   */
  subscribe(taskId: string, listener: (item: StreamResponse | undefined) => void): Promise<() => void>;
  close?(): Promise<void>;
}

/** What `PostgresTaskEventBus` needs of a `pg.Client`: a dedicated connection that can LISTEN. */
export interface PgListenConnection {
  connect(): Promise<unknown>;
  query(text: string, values?: unknown[]): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error' | 'end', listener: (error?: unknown) => void): unknown;
  end(): Promise<void>;
}

export interface PostgresTaskEventBusOptions {
  /** A Postgres URL; `pg` (an optional peer) is imported on first use. */
  connectionString?: string;
  /** Or a factory of unconnected clients (each reconnect takes a new one). */
  createClient?: () => PgListenConnection | Promise<PgListenConnection>;
  /** The NOTIFY channel (default `a2a_task_events`); instances that share tasks use the same one. */
  channel?: string;
}

/** NOTIFY payloads are limited to 8000 bytes; larger updates travel as "reload from the store". */
const MAX_PAYLOAD_BYTES = 7900;
const RECONNECT_MS = 500;

interface Envelope {
  /** The publishing process, so it ignores its own notifications. */
  o: string;
  t: string;
  i?: StreamResponse;
}

/**
 * A TaskEventBus on Postgres LISTEN/NOTIFY: one listening connection per process for every task,
 * NOTIFY sent on it too. A dropped connection is reopened; updates sent while it was down are lost
 * to live streams (the task in the store stays complete, and a resubscribe reads it).
 */
export class PostgresTaskEventBus implements TaskEventBus {
  readonly #options: PostgresTaskEventBusOptions;
  readonly #channel: string;
  readonly #origin = randomUUID();
  readonly #listeners = new Map<string, Set<(item: StreamResponse | undefined) => void>>();
  #client: Promise<PgListenConnection> | undefined;
  /** The connected client `#client` resolved to; events of any other (older) client are ignored. */
  #live: PgListenConnection | undefined;
  #closed = false;

  constructor(options: PostgresTaskEventBusOptions) {
    if (!options.connectionString && !options.createClient)
      throw new TypeError('PostgresTaskEventBus needs a connectionString or createClient');
    this.#options = options;
    this.#channel = options.channel ?? 'a2a_task_events';
  }

  async publish(taskId: string, item: StreamResponse): Promise<void> {
    let payload = JSON.stringify({ o: this.#origin, t: taskId, i: item } satisfies Envelope);
    if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES)
      payload = JSON.stringify({ o: this.#origin, t: taskId } satisfies Envelope);
    const client = await this.#connection();
    await client.query('select pg_notify($1, $2)', [this.#channel, payload]);
  }

  async subscribe(taskId: string, listener: (item: StreamResponse | undefined) => void): Promise<() => void> {
    let set = this.#listeners.get(taskId);
    if (!set) {
      set = new Set();
      this.#listeners.set(taskId, set);
    }
    set.add(listener);
    await this.#connection();
    return () => {
      const current = this.#listeners.get(taskId);
      current?.delete(listener);
      if (current?.size === 0) this.#listeners.delete(taskId);
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.clear();
    const client = await this.#client?.catch(() => undefined);
    this.#client = undefined;
    this.#live = undefined;
    await client?.end().catch(() => undefined);
  }

  #connection(): Promise<PgListenConnection> {
    if (this.#closed) return Promise.reject(new Error('The task event bus is closed'));
    this.#client ??= this.#open().catch((error: unknown) => {
      this.#client = undefined;
      throw error;
    });
    return this.#client;
  }

  async #open(): Promise<PgListenConnection> {
    const client = await this.#newClient();
    const lost = () => {
      // pg reports one loss as 'error' and then 'end': by the second, a new client may be live.
      if (this.#closed || this.#live !== client) return;
      this.#live = undefined;
      this.#client = undefined;
      void client.end().catch(() => undefined);
      // Reopen while anyone listens; publishers reopen on their own next call.
      if (this.#listeners.size > 0)
        setTimeout(() => {
          if (!this.#closed && this.#listeners.size > 0) void this.#connection().catch(() => undefined);
        }, RECONNECT_MS).unref();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (message) => this.#deliver(message.payload));
    try {
      await client.connect();
      await client.query(`listen ${quoteIdentifier(this.#channel)}`);
    } catch (error) {
      // A client that connected but could not LISTEN would otherwise stay open.
      await client.end().catch(() => undefined);
      throw error;
    }
    this.#live = client;
    return client;
  }

  async #newClient(): Promise<PgListenConnection> {
    if (this.#options.createClient) return this.#options.createClient();
    const pg = (await import('pg')) as unknown as {
      default?: { Client: new (config: { connectionString?: string }) => PgListenConnection };
      Client?: new (config: { connectionString?: string }) => PgListenConnection;
    };
    const Client = pg.default?.Client ?? pg.Client;
    if (!Client) throw new Error('The pg package has no Client export');
    return new Client({ connectionString: this.#options.connectionString });
  }

  #deliver(payload: string | undefined): void {
    const envelope = payload === undefined ? undefined : (tryParseJson(payload) as Envelope | undefined);
    if (!envelope || typeof envelope.t !== 'string' || envelope.o === this.#origin) return;
    const set = this.#listeners.get(envelope.t);
    if (!set) return;
    // A throwing listener must not escape into pg's 'notification' emitter (that would crash the process).
    for (const listener of [...set]) {
      try {
        listener(envelope.i);
      } catch {
        // The listener's own failure is its subscriber's business; the others still get the update.
      }
    }
  }
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
