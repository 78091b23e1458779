// InMemoryRunStore's listing and claiming, loaded on first use: a Runner that only runs in the
// foreground never lists or claims runs (docs/decisions/0024-portable-core.md).
import { nowMs } from '../utils/clock.js';
import {
  type ClaimRunParams,
  isRunFinished,
  type ListRunsParams,
  type ListRunsResult,
  type RunRecord,
} from './run-store.js';

const DEFAULT_PAGE_SIZE = 100;

/** One app's runs (in creation order), newest first, filtered and paged. */
export function listRunsIn(runs: Map<string, RunRecord> | undefined, params: ListRunsParams): ListRunsResult {
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

/** Claims the first claimable run of these apps' runs (synchronously: no other claim interleaves). */
export function claimRunIn(
  apps: readonly (Map<string, RunRecord> | undefined)[],
  params: ClaimRunParams,
): RunRecord | undefined {
  for (const runs of apps) {
    const claimed = runs && claimIn(runs, params);
    if (claimed) return claimed;
  }
  return undefined;
}

function claimIn(runs: Map<string, RunRecord>, params: ClaimRunParams): RunRecord | undefined {
  for (const run of runs.values()) {
    const unowned = run.status === 'queued' && run.owner === undefined;
    const stale =
      (run.status === 'queued' || run.status === 'running') &&
      (run.heartbeatAt ?? run.createdAt) < params.staleBefore;
    if (!unowned && (!stale || run.owner === params.owner)) continue;
    // FIFO per session: never a run while an earlier one of its session is unfinished.
    if (hasEarlierUnfinished(runs, run)) continue;
    run.owner = params.owner;
    run.heartbeatAt = nowMs();
    return { ...run };
  }
  return undefined;
}

function hasEarlierUnfinished(runs: Map<string, RunRecord>, run: RunRecord): boolean {
  for (const other of runs.values()) {
    if (other === run) return false;
    if (other.userId === run.userId && other.sessionId === run.sessionId && !isRunFinished(other.status))
      return true;
  }
  return false;
}
