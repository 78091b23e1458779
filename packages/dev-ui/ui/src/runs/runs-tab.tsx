import './runs.css';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { formatDuration, formatTime, shortId } from '../lib/format.js';
import { isLive, type RunRecord, runsApi } from './runs-api.js';

/** How often the list is read again while one of its runs is queued or running. */
const POLL_MS = 1000;

/**
 * The session's runs, newest first: status, duration, Cancel for a queued or running run, and
 * Reattach, which follows a run's events into the chat (a background run, or one started before a
 * reload).
 */
export function RunsTab({
  target,
  refreshKey,
  attachedRun,
  onReattach,
}: {
  target?: { app: string; user: string; session: string };
  refreshKey: number;
  /** The run whose events the chat follows now, if any. */
  attachedRun?: string;
  onReattach?: (run: RunRecord) => void;
}) {
  const [runs, setRuns] = useState<RunRecord[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState<string | undefined>();
  const [tick, setTick] = useState(0);
  const app = target?.app;
  const user = target?.user;
  const session = target?.session;

  const load = useCallback(async () => {
    if (!app || !user || !session) return;
    try {
      setRuns(await runsApi.list(app, user, session, { pageSize: 50 }));
      setError(undefined);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }, [app, user, session]);

  useEffect(() => {
    setRuns(undefined);
  }, [app, user, session]);

  useEffect(() => {
    void load();
  }, [load, refreshKey, tick, attachedRun]);

  const live = runs?.some((r) => isLive(r.status)) ?? false;
  useEffect(() => {
    if (!live) return;
    const timer = setTimeout(() => setTick((t) => t + 1), POLL_MS);
    return () => clearTimeout(timer);
  }, [live, runs]);

  if (!app || !user || !session) return <p class="muted">Open a session to see its runs.</p>;
  if (error && !runs) return <p role="alert">Could not list runs: {error}</p>;
  if (!runs) return <p class="muted">Loading…</p>;
  if (runs.length === 0) return <p class="muted">No runs in this session yet.</p>;

  const cancel = async (run: RunRecord) => {
    setBusy(run.runId);
    try {
      await runsApi.cancel(app, user, session, run.runId);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(undefined);
      setTick((t) => t + 1);
    }
  };

  return (
    <div class="runs-tab">
      {error ? <p role="alert">{error}</p> : null}
      <table class="runs-table" aria-label="Runs">
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Status</th>
            <th scope="col">Duration</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.runId} data-run-id={run.runId} data-status={run.status}>
              <td>
                <span class="mono" title={`${run.runId}\ninvocation ${run.invocationId}`}>
                  {shortId(run.runId)}
                </span>
                <span class="muted small"> {formatTime(run.createdAt)}</span>
                {run.background ? <span class="muted small"> · background</span> : null}
              </td>
              <td>
                <span class={`run-status ${run.status}`}>{run.status}</span>
                {run.cancelRequested && isLive(run.status) ? (
                  <span class="muted small"> (cancelling)</span>
                ) : null}
                {run.error?.message && run.status === 'failed' ? (
                  <div class="small run-error">{run.error.message}</div>
                ) : null}
              </td>
              <td>{formatDuration(run.durationMs)}</td>
              <td class="run-actions">
                {isLive(run.status) ? (
                  <div class="run-buttons">
                    {onReattach ? (
                      <button
                        type="button"
                        class="btn small"
                        disabled={attachedRun === run.runId}
                        aria-label={`Reattach to run ${run.runId}`}
                        onClick={() => onReattach(run)}
                      >
                        {attachedRun === run.runId ? 'Attached' : 'Reattach'}
                      </button>
                    ) : null}
                    <button
                      type="button"
                      class="btn small danger"
                      disabled={busy === run.runId}
                      aria-label={`Cancel run ${run.runId}`}
                      onClick={() => void cancel(run)}
                    >
                      Cancel
                    </button>
                  </div>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
