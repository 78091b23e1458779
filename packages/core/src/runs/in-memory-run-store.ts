import { nowMs } from '../utils/clock.js';
import {
  type ClaimRunParams,
  isRunFinished,
  type ListRunsParams,
  type ListRunsResult,
  type RunKey,
  type RunPatch,
  type RunRecord,
  type RunStore,
} from './run-store.js';

export interface InMemoryRunStoreOptions {
  /** Finished runs kept per app before the oldest are forgotten (default 10,000). */
  maxFinishedRuns?: number;
}

const DEFAULT_PAGE_SIZE = 100;

/**
 * Runs in process memory (the default of every Runner). Finished runs beyond `maxFinishedRuns` are
 * forgotten in the order they finished, so a long-lived process does not grow without bound.
 */
export class InMemoryRunStore implements RunStore {
  readonly shared = false;
  /** By app, in creation order (a Map keeps insertion order). */
  private readonly apps = new Map<string, Map<string, RunRecord>>();
  private readonly listeners = new Set<(key: RunKey) => void>();
  private readonly maxFinished: number;
  /** By app, the ids of finished runs in the order they finished (a queue: `head` is its start). */
  private readonly finishedQueues = new Map<string, { ids: string[]; head: number }>();

  constructor(options: InMemoryRunStoreOptions = {}) {
    this.maxFinished = options.maxFinishedRuns ?? 10_000;
  }

  async createRun(run: RunRecord): Promise<RunRecord> {
    let runs = this.apps.get(run.appName);
    if (!runs) {
      runs = new Map();
      this.apps.set(run.appName, runs);
    }
    const stored = { ...run };
    runs.set(run.id, stored);
    return { ...stored };
  }

  async getRun(key: RunKey): Promise<RunRecord | undefined> {
    const run = this.apps.get(key.appName)?.get(key.runId);
    return run && { ...run };
  }

  async updateRun(key: RunKey, patch: RunPatch): Promise<RunRecord | undefined> {
    const run = this.apps.get(key.appName)?.get(key.runId);
    if (!run) return undefined;
    const wasFinished = isRunFinished(run.status);
    if (wasFinished) {
      const { status: _status, ...rest } = patch;
      Object.assign(run, rest);
    } else Object.assign(run, patch);
    if (!wasFinished && isRunFinished(run.status)) this.finished(key.appName, key.runId);
    return { ...run };
  }

  async listRuns(params: ListRunsParams): Promise<ListRunsResult> {
    const runs = this.apps.get(params.appName);
    if (!runs) return { runs: [] };
    const pageSize = Math.max(1, params.pageSize ?? DEFAULT_PAGE_SIZE);
    const statuses = params.status && new Set(params.status);
    const all = [...runs.values()].reverse();
    let start = 0;
    if (params.pageToken) {
      const at = all.findIndex((r) => r.id === params.pageToken);
      start = at < 0 ? all.length : at;
    }
    const page: RunRecord[] = [];
    let i = start;
    for (; i < all.length && page.length <= pageSize; i++) {
      const run = all[i] as RunRecord;
      if (params.userId !== undefined && run.userId !== params.userId) continue;
      if (params.sessionId !== undefined && run.sessionId !== params.sessionId) continue;
      if (statuses && !statuses.has(run.status)) continue;
      page.push({ ...run });
    }
    const next = page.length > pageSize ? page.pop() : undefined;
    return next ? { runs: page, nextPageToken: next.id } : { runs: page };
  }

  async requestCancel(key: RunKey): Promise<RunRecord | undefined> {
    const run = this.apps.get(key.appName)?.get(key.runId);
    if (!run) return undefined;
    if (isRunFinished(run.status)) return { ...run };
    run.cancelRequested = true;
    if (run.status === 'queued') {
      run.status = 'cancelled';
      run.endedAt = nowMs();
      run.error = { code: 'CANCELLED', message: 'The run was cancelled before it started' };
      this.finished(key.appName, key.runId);
    }
    for (const listener of this.listeners) listener(key);
    return { ...run };
  }

  async claimRun(params: ClaimRunParams): Promise<RunRecord | undefined> {
    const apps = params.appName === undefined ? [...this.apps.values()] : [this.apps.get(params.appName)];
    for (const runs of apps) {
      const claimed = runs && this.claimIn(runs, params);
      if (claimed) return claimed;
    }
    return undefined;
  }

  private claimIn(runs: Map<string, RunRecord>, params: ClaimRunParams): RunRecord | undefined {
    for (const run of runs.values()) {
      const unowned = run.status === 'queued' && run.owner === undefined;
      const stale =
        (run.status === 'queued' || run.status === 'running') &&
        (run.heartbeatAt ?? run.createdAt) < params.staleBefore;
      if (!unowned && (!stale || run.owner === params.owner)) continue;
      // FIFO per session: never a run while an earlier one of its session is unfinished.
      if (this.hasEarlierUnfinished(runs, run)) continue;
      run.owner = params.owner;
      run.heartbeatAt = nowMs();
      return { ...run };
    }
    return undefined;
  }

  private hasEarlierUnfinished(runs: Map<string, RunRecord>, run: RunRecord): boolean {
    for (const other of runs.values()) {
      if (other === run) return false;
      if (other.userId === run.userId && other.sessionId === run.sessionId && !isRunFinished(other.status))
        return true;
    }
    return false;
  }

  onCancelRequested(listener: (key: RunKey) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Forgets the runs that finished first once more than the limit have finished (O(1) per run). */
  private finished(appName: string, runId: string): void {
    let queue = this.finishedQueues.get(appName);
    if (!queue) {
      queue = { ids: [], head: 0 };
      this.finishedQueues.set(appName, queue);
    }
    queue.ids.push(runId);
    const runs = this.apps.get(appName);
    while (queue.ids.length - queue.head > this.maxFinished) runs?.delete(queue.ids[queue.head++] as string);
    // Drop the forgotten ids now and then, so the queue stays about the size of the limit.
    if (queue.head > 1024 && queue.head * 2 > queue.ids.length) {
      queue.ids = queue.ids.slice(queue.head);
      queue.head = 0;
    }
  }
}
