import { DEFAULT_ORPHAN_AFTER_MS, describeError, type RunStore } from '@adk/core';
import type { AppRegistry } from './apps.js';
import { type AdkServerLogger, errorLine } from './logger.js';
import type { RunTracker } from './run-tracker.js';

export interface ServerRunWorkerOptions {
  /** How often to look for runs to claim when none was found (ms, default 1000; 200 for dedicated workers). */
  pollIntervalMs?: number;
  /** A run whose owner's heartbeat is older than this is taken over (ms, default 3500: 1.75 heartbeat intervals). */
  staleAfterMs?: number;
  /**
   * A running run whose owner lost its session (its Postgres connection closed: the process died)
   * is taken over once its heartbeat is this old (ms, default 500).
   */
  orphanAfterMs?: number;
  /** Runs this process executes at once before it stops claiming (default 10). */
  maxConcurrentRuns?: number;
}

/**
 * Claims runs of any app that nobody executes (queued for workers, or left by a process that
 * stopped heartbeating) and resumes each on its app's runner. One claim query per poll while idle.
 */
export function startServerRunWorker(
  store: RunStore,
  apps: AppRegistry,
  instanceId: string,
  tracker: RunTracker,
  logger: AdkServerLogger,
  options: ServerRunWorkerOptions = {},
): { stop(): void } {
  const interval = options.pollIntervalMs ?? 1000;
  const staleAfter = options.staleAfterMs ?? 3500;
  const orphanAfter = options.orphanAfterMs ?? DEFAULT_ORPHAN_AFTER_MS;
  const max = options.maxConcurrentRuns ?? 10;
  let active = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const claimOne = async (): Promise<boolean> => {
    const now = Date.now();
    const record = await store.claimRun?.({
      owner: instanceId,
      staleBefore: now - staleAfter,
      orphanedBefore: now - orphanAfter,
    });
    if (!record) return false;
    let tracked: ReturnType<RunTracker['start']>;
    try {
      tracked = tracker.start();
    } catch {
      // Shutting down: leave it for another process (its heartbeat goes stale again).
      return false;
    }
    active++;
    void (async () => {
      try {
        const runner = await apps.runner(record.appName);
        await runner.resumeRun(record, { signal: tracked.signal });
      } catch (error) {
        // The app is gone or does not load: the run cannot go on anywhere until it is fixed.
        logger.error(errorLine(`Run ${record.id} of app ${record.appName} could not be resumed`, error));
        await store
          .updateRun(
            { appName: record.appName, runId: record.id },
            {
              status: 'failed',
              endedAt: Date.now(),
              error: { code: 'RESUME_FAILED', message: describeError(error) },
            },
          )
          .catch(() => undefined);
      } finally {
        active--;
        tracked.end();
      }
    })();
    return true;
  };
  const tick = async () => {
    timer = undefined;
    try {
      while (!stopped && active < max && (await claimOne()));
    } catch (error) {
      logger.warn(errorLine('Claiming runs failed (retrying)', error));
    }
    if (!stopped) {
      timer = setTimeout(() => void tick(), interval);
      timer.unref();
    }
  };
  void tick();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
