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
    const { listRunsIn } = await loadQueries();
    return listRunsIn(this.apps.get(params.appName), params);
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
    const { claimRunIn } = await loadQueries();
    // Synchronous from here on: two claims in this process never take the same run.
    const apps = params.appName === undefined ? [...this.apps.values()] : [this.apps.get(params.appName)];
    return claimRunIn(apps, params);
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

let queries: Promise<typeof import('./in-memory-run-queries.js')> | undefined;
/** Listing and claiming runs (servers, workers), imported once on first use. */
const loadQueries = () => (queries ??= import('./in-memory-run-queries.js'));
