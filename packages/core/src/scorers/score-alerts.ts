import { ValidationError } from '../errors/errors.js';
import type { ScoreStore, ScoreSummary } from './score-store.js';

/**
 * A threshold alert: when the mean of a scorer's ok scores in a window crosses `threshold`, one
 * JSON POST to `url` for that window (never one per score).
 */
export interface ScoreAlert {
  scorerName: string;
  threshold: number;
  /** Fire when the window's mean is below (default) or above the threshold. */
  direction?: 'below' | 'above';
  /** Window length in ms, aligned to the epoch (default 3 600 000: one hour). */
  windowMs?: number;
  /** Ok scores the window needs before it can fire (default 1). */
  minCount?: number;
  /** The webhook. */
  url: string;
  /** Extra request headers (e.g. an authorization token). */
  headers?: Record<string, string>;
}

/** The webhook's JSON body. */
export interface ScoreAlertPayload {
  type: 'adk.score_alert';
  appName: string;
  scorerName: string;
  direction: 'below' | 'above';
  threshold: number;
  /** ms since the epoch, the window is [from, to). */
  window: { from: number; to: number };
  /** The aggregate when the alert fired. */
  count: number;
  failed: number;
  mean: number;
  p50: number | null;
  min: number | null;
  max: number | null;
}

/** Throws a `ValidationError` for an alert with a bad threshold, window or URL. */
export function checkScoreAlert(alert: ScoreAlert): void {
  if (!Number.isFinite(alert.threshold))
    throw new ValidationError('Score alert threshold must be a finite number');
  if (alert.windowMs !== undefined && (!Number.isFinite(alert.windowMs) || alert.windowMs < 1000))
    throw new ValidationError('Score alert windowMs must be at least 1000');
  if (!/^https?:\/\//.test(alert.url))
    throw new ValidationError(`Score alert url must be http(s): ${alert.url}`);
}

/**
 * After a score is saved at `at`: for each alert of that scorer, aggregates the score's window and
 * posts once when its mean crosses the threshold. The store's `claimAlert` makes it once per
 * window across instances. A webhook that fails is reported to `onError`, not retried.
 */
export async function evaluateScoreAlerts(params: {
  alerts: readonly ScoreAlert[];
  store: ScoreStore;
  appName: string;
  scorerName: string;
  at: number;
  fetch?: typeof fetch;
  onError?: (error: unknown) => void;
}): Promise<ScoreAlertPayload[]> {
  const sent: ScoreAlertPayload[] = [];
  for (const alert of params.alerts) {
    if (alert.scorerName !== params.scorerName) continue;
    const windowMs = alert.windowMs ?? 3_600_000;
    const from = Math.floor(params.at / windowMs) * windowMs;
    const to = from + windowMs;
    const [summary] = await params.store.summarize({
      appName: params.appName,
      scorerName: params.scorerName,
      from,
      to,
    });
    if (!summary || summary.mean === null) continue;
    const direction = alert.direction ?? 'below';
    const ok = summary.count - summary.failed;
    if (ok < (alert.minCount ?? 1)) continue;
    const crossed = direction === 'below' ? summary.mean < alert.threshold : summary.mean > alert.threshold;
    if (!crossed) continue;
    const key = `${params.appName}\u0000${params.scorerName}\u0000${direction}\u0000${alert.threshold}\u0000${alert.url}\u0000${from}`;
    if (!(await params.store.claimAlert(key))) continue;
    const payload = alertPayload(summary as ScoreSummary & { mean: number }, alert, direction, { from, to });
    try {
      const response = await (params.fetch ?? fetch)(alert.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...alert.headers },
        body: JSON.stringify(payload),
      });
      await response.body?.cancel().catch(() => undefined);
      if (!response.ok) throw new Error(`Score alert webhook answered ${response.status}`);
      sent.push(payload);
    } catch (error) {
      params.onError?.(error);
    }
  }
  return sent;
}

function alertPayload(
  s: ScoreSummary & { mean: number },
  alert: ScoreAlert,
  direction: 'below' | 'above',
  window: { from: number; to: number },
): ScoreAlertPayload {
  return {
    type: 'adk.score_alert',
    appName: s.appName,
    scorerName: s.scorerName,
    direction,
    threshold: alert.threshold,
    window,
    count: s.count,
    failed: s.failed,
    mean: s.mean,
    p50: s.p50,
    min: s.min,
    max: s.max,
  };
}
