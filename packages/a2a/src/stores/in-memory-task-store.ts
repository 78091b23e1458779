import { cloneJson } from '../protocol/clone.js';
import { A2aError } from '../protocol/errors.js';
import type { Task, TaskPushNotificationConfig } from '../protocol/types.js';
import {
  decodePageToken,
  encodePageToken,
  type ListTasksPage,
  type ListTasksQuery,
  statusTimeOf,
  type TaskOwner,
  type TaskStore,
} from './task-store.js';

interface Entry {
  task: Task;
  owner: TaskOwner;
}

/** A process-local task store. Tasks are deep-copied in and out so callers cannot mutate them. */
export class InMemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, Entry>();
  readonly #push = new Map<string, Map<string, TaskPushNotificationConfig>>();

  async get(taskId: string, owner?: TaskOwner): Promise<Task | undefined> {
    const entry = this.#tasks.get(taskId);
    if (!entry || (entry.owner !== undefined && entry.owner !== owner)) return undefined;
    return cloneJson(entry.task);
  }

  async save(task: Task, owner?: TaskOwner): Promise<void> {
    const existing = this.#tasks.get(task.id);
    this.#tasks.set(task.id, { task: cloneJson(task), owner: existing ? existing.owner : owner });
  }

  async list(query: ListTasksQuery): Promise<ListTasksPage> {
    const cursor = query.pageToken ? decodePageToken(query.pageToken) : undefined;
    if (query.pageToken && !cursor) throw new A2aError('INVALID_PARAMS', 'Invalid pageToken');
    const matching: { task: Task; ts: number }[] = [];
    for (const { task, owner } of this.#tasks.values()) {
      if (owner !== undefined && owner !== query.owner) continue;
      if (query.contextId && task.contextId !== query.contextId) continue;
      if (query.status && task.status.state !== query.status) continue;
      const ts = statusTimeOf(task);
      if (query.statusTimestampAfter !== undefined && ts <= query.statusTimestampAfter) continue;
      matching.push({ task, ts });
    }
    matching.sort((a, b) => b.ts - a.ts || (a.task.id < b.task.id ? 1 : a.task.id > b.task.id ? -1 : 0));
    const start = cursor
      ? matching.findIndex(
          (m) => m.ts < cursor.timestamp || (m.ts === cursor.timestamp && m.task.id < cursor.id),
        )
      : 0;
    const page = start < 0 ? [] : matching.slice(start, start + query.pageSize);
    const last = page.at(-1);
    const more = start >= 0 && start + query.pageSize < matching.length;
    return {
      tasks: page.map((m) => cloneJson(m.task)),
      nextPageToken: more && last ? encodePageToken(last.ts, last.task.id) : '',
      totalSize: matching.length,
    };
  }

  async savePushConfig(config: TaskPushNotificationConfig): Promise<void> {
    let forTask = this.#push.get(config.taskId);
    if (!forTask) {
      forTask = new Map();
      this.#push.set(config.taskId, forTask);
    }
    forTask.set(config.id, cloneJson(config));
  }

  async getPushConfig(taskId: string, configId: string): Promise<TaskPushNotificationConfig | undefined> {
    const config = this.#push.get(taskId)?.get(configId);
    return config ? cloneJson(config) : undefined;
  }

  async listPushConfigs(taskId: string): Promise<TaskPushNotificationConfig[]> {
    return [...(this.#push.get(taskId)?.values() ?? [])].map((c) => cloneJson(c));
  }

  async deletePushConfig(taskId: string, configId: string): Promise<void> {
    this.#push.get(taskId)?.delete(configId);
  }
}
