import { tryParseJson } from '@adk/core';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { A2aError } from '../../protocol/errors.js';
import { taskStateSchema } from '../../protocol/schemas.js';
import type { Task, TaskPushNotificationConfig } from '../../protocol/types.js';
import {
  decodePageToken,
  encodePageToken,
  type ListTasksPage,
  type ListTasksQuery,
  statusTimeOf,
  type TaskOwner,
  type TaskStore,
} from '../task-store.js';
import { DEFAULT_TASK_TABLE_PREFIX, migrateTaskStore, type TaskTables, taskTablesFor } from './migrations.js';

export interface SqlTaskStoreOptions {
  /** The database: Postgres (`pg`), PGlite or SQLite (`node:sqlite`, better-sqlite3) through Kysely. */
  // biome-ignore lint/suspicious/noExplicitAny: the store works on any Kysely database; its tables are its own
  db: Kysely<any>;
  /** Prefix of the store's tables (default `a2a_`). */
  tablePrefix?: string;
  /** Run the migrations on first use (default true). Turn off when migrations run at deploy time. */
  migrate?: boolean;
}

// Stored JSON is checked for the fields the store and the server rely on; the rest is kept as is.
const storedTaskSchema = z
  .object({
    id: z.string(),
    contextId: z.string(),
    status: z.looseObject({ state: taskStateSchema, timestamp: z.string().optional() }),
  })
  .loose();
const storedPushConfigSchema = z.looseObject({ id: z.string(), taskId: z.string(), url: z.string() });

function readJson<T>(text: unknown, schema: z.ZodType<T>, what: string): T {
  const value = typeof text === 'string' ? tryParseJson(text) : undefined;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new A2aError('INTERNAL', `A stored ${what} is corrupt`);
  return parsed.data;
}

/**
 * A task store in SQL (Postgres, PGlite, SQLite) through Kysely, so several server processes can
 * share tasks and push configs. Tasks are stored as JSON beside the columns that list and page them.
 */
export class SqlTaskStore implements TaskStore {
  // biome-ignore lint/suspicious/noExplicitAny: table names are dynamic (prefix)
  readonly #db: Kysely<any>;
  readonly #t: TaskTables;
  readonly #prefix: string;
  #ready: Promise<void> | undefined;

  constructor(options: SqlTaskStoreOptions) {
    this.#db = options.db;
    const prefix = options.tablePrefix ?? DEFAULT_TASK_TABLE_PREFIX;
    this.#t = taskTablesFor(prefix);
    this.#prefix = prefix;
    if (options.migrate === false) this.#ready = Promise.resolve();
  }

  /** Runs the migrations (once); every operation awaits this first. */
  ready(): Promise<void> {
    if (!this.#ready) {
      const pending = migrateTaskStore(this.#db, { tablePrefix: this.#prefix }).then(() => undefined);
      // A failed migration is retried by the next operation instead of being cached.
      pending.catch(() => {
        if (this.#ready === pending) this.#ready = undefined;
      });
      this.#ready = pending;
    }
    return this.#ready;
  }

  async get(taskId: string, owner?: TaskOwner): Promise<Task | undefined> {
    await this.ready();
    const row = await this.#db
      .selectFrom(this.#t.tasks)
      .select(['task', 'owner'])
      .where('id', '=', taskId)
      .executeTakeFirst();
    if (!row) return undefined;
    if (row.owner !== null && row.owner !== undefined && row.owner !== owner) return undefined;
    return readJson(row.task, storedTaskSchema, 'task') as Task;
  }

  async save(task: Task, owner?: TaskOwner): Promise<void> {
    await this.ready();
    const now = Date.now();
    const values = {
      context_id: task.contextId,
      state: task.status.state,
      status_time: statusTimeOf(task),
      task: JSON.stringify(task),
      updated_at: now,
    };
    // The owner is set on insert only: a task never changes hands.
    await this.#db
      .insertInto(this.#t.tasks)
      .values({ id: task.id, owner: owner ?? null, ...values })
      .onConflict((oc) => oc.column('id').doUpdateSet(values))
      .execute();
  }

  async list(query: ListTasksQuery): Promise<ListTasksPage> {
    await this.ready();
    const cursor = query.pageToken ? decodePageToken(query.pageToken) : undefined;
    if (query.pageToken && !cursor) throw new A2aError('INVALID_PARAMS', 'Invalid pageToken');
    let base = this.#db.selectFrom(this.#t.tasks);
    const owner = query.owner;
    base =
      owner === undefined
        ? base.where('owner', 'is', null)
        : base.where((eb) => eb.or([eb('owner', 'is', null), eb('owner', '=', owner)]));
    if (query.contextId) base = base.where('context_id', '=', query.contextId);
    if (query.status) base = base.where('state', '=', query.status);
    if (query.statusTimestampAfter !== undefined)
      base = base.where('status_time', '>', query.statusTimestampAfter);

    const count = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
    const totalSize = Number(count?.n ?? 0);

    let page = base;
    if (cursor) {
      page = page.where((eb) =>
        eb.or([
          eb('status_time', '<', cursor.timestamp),
          eb.and([eb('status_time', '=', cursor.timestamp), eb('id', '<', cursor.id)]),
        ]),
      );
    }
    const rows = await page
      .select(['id', 'status_time', 'task'])
      .orderBy('status_time', 'desc')
      .orderBy('id', 'desc')
      .limit(query.pageSize + 1)
      .execute();
    const more = rows.length > query.pageSize;
    const kept = rows.slice(0, query.pageSize);
    const last = kept.at(-1);
    return {
      tasks: kept.map((r) => readJson(r.task, storedTaskSchema, 'task') as Task),
      nextPageToken: more && last ? encodePageToken(Number(last.status_time), String(last.id)) : '',
      totalSize,
    };
  }

  async savePushConfig(config: TaskPushNotificationConfig): Promise<void> {
    await this.ready();
    const json = JSON.stringify(config);
    await this.#db
      .insertInto(this.#t.pushConfigs)
      .values({ task_id: config.taskId, id: config.id, config: json, created_at: Date.now() })
      .onConflict((oc) => oc.columns(['task_id', 'id']).doUpdateSet({ config: json }))
      .execute();
  }

  async getPushConfig(taskId: string, configId: string): Promise<TaskPushNotificationConfig | undefined> {
    await this.ready();
    const row = await this.#db
      .selectFrom(this.#t.pushConfigs)
      .select('config')
      .where('task_id', '=', taskId)
      .where('id', '=', configId)
      .executeTakeFirst();
    return row
      ? (readJson(row.config, storedPushConfigSchema, 'push config') as TaskPushNotificationConfig)
      : undefined;
  }

  async listPushConfigs(taskId: string): Promise<TaskPushNotificationConfig[]> {
    await this.ready();
    const rows = await this.#db
      .selectFrom(this.#t.pushConfigs)
      .select('config')
      .where('task_id', '=', taskId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(
      (r) => readJson(r.config, storedPushConfigSchema, 'push config') as TaskPushNotificationConfig,
    );
  }

  async deletePushConfig(taskId: string, configId: string): Promise<void> {
    await this.ready();
    await this.#db
      .deleteFrom(this.#t.pushConfigs)
      .where('task_id', '=', taskId)
      .where('id', '=', configId)
      .execute();
  }
}
