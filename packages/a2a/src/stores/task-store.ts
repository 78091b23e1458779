import type { Task, TaskPushNotificationConfig, TaskState } from '../protocol/types.js';

/** Who may see a task. `undefined` means "no caller identity" (auth disabled): tasks are shared. */
export type TaskOwner = string | undefined;

export interface ListTasksQuery {
  owner?: TaskOwner;
  contextId?: string;
  status?: TaskState;
  /** Only tasks whose status timestamp is after this instant (ms since epoch). */
  statusTimestampAfter?: number;
  pageSize: number;
  pageToken?: string;
}

export interface ListTasksPage {
  /** Full tasks (history and artifacts included); the caller trims them. */
  tasks: Task[];
  /** '' on the last page. */
  nextPageToken: string;
  totalSize: number;
}

/**
 * Where a server keeps its tasks and push-notification configs. Implementations must be safe to
 * share between server processes when they say so (the SQL store is; the in-memory one is not).
 */
export interface TaskStore {
  /** The task, or undefined when it does not exist or belongs to another owner. */
  get(taskId: string, owner?: TaskOwner): Promise<Task | undefined>;
  /** Creates or replaces the task. The owner is recorded on creation and never changes. */
  save(task: Task, owner?: TaskOwner): Promise<void>;
  /** Tasks sorted by status timestamp, newest first, with cursor paging. */
  list(query: ListTasksQuery): Promise<ListTasksPage>;

  savePushConfig(config: TaskPushNotificationConfig): Promise<void>;
  getPushConfig(taskId: string, configId: string): Promise<TaskPushNotificationConfig | undefined>;
  listPushConfigs(taskId: string): Promise<TaskPushNotificationConfig[]>;
  /** Idempotent. */
  deletePushConfig(taskId: string, configId: string): Promise<void>;
}

/** Cursor = base64url JSON of the last item's sort key; opaque to callers. */
export function encodePageToken(timestamp: number, id: string): string {
  return Buffer.from(JSON.stringify([timestamp, id]), 'utf8').toString('base64url');
}

export function decodePageToken(token: string): { timestamp: number; id: string } | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string') {
      return { timestamp: value[0], id: value[1] };
    }
  } catch {
    // fall through: an unreadable token is reported as invalid by the caller
  }
  return undefined;
}

export function statusTimeOf(task: Task): number {
  const t = task.status.timestamp ? Date.parse(task.status.timestamp) : Number.NaN;
  return Number.isNaN(t) ? 0 : t;
}
