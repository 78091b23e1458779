import { useEffect, useState } from 'preact/hooks';
import type { AdkEvent } from '../api/types.js';
import { listScores, type ScoreRecord } from './scores-api.js';

const W = 320;
const H = 120;
const PAD = 24;

/** One scorer's scores over time: a small SVG line with a point per score (failed ones below). */
export function ScoreChart({ name, scores }: { name: string; scores: ScoreRecord[] }) {
  const ok = scores
    .filter((s) => s.status === 'ok' && s.score !== undefined)
    .sort((a, b) => a.createdAt - b.createdAt);
  const failed = scores.length - ok.length;
  const values = ok.map((s) => s.score as number);
  const times = ok.map((s) => s.createdAt);
  const min = Math.min(0, ...values);
  const max = Math.max(1, ...values);
  const t0 = Math.min(...times);
  const t1 = Math.max(...times);
  const x = (t: number) => (t1 === t0 ? W / 2 : PAD + ((t - t0) / (t1 - t0)) * (W - 2 * PAD));
  const y = (v: number) => H - PAD - ((v - min) / (max - min || 1)) * (H - 2 * PAD);
  const mean = values.length ? values.reduce((a, b) => a + b, 0) / values.length : undefined;
  return (
    <figure class="score-chart" data-scorer={name}>
      <figcaption>
        <strong>{name}</strong>{' '}
        <span class="muted small">
          {ok.length} scored{failed ? ` · ${failed} failed` : ''}
          {mean !== undefined ? ` · mean ${mean.toFixed(2)}` : ''}
        </span>
      </figcaption>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        width={W}
        height={H}
        role="img"
        aria-label={`Scores of ${name} over time`}
      >
        <line class="axis" x1={PAD} y1={H - PAD} x2={W - PAD} y2={H - PAD} />
        <line class="axis" x1={PAD} y1={PAD} x2={PAD} y2={H - PAD} />
        <text class="tick" x={PAD - 4} y={y(max) + 4} text-anchor="end">
          {max}
        </text>
        <text class="tick" x={PAD - 4} y={y(min) + 4} text-anchor="end">
          {min}
        </text>
        {ok.length > 1 ? (
          <polyline
            class="score-line"
            points={ok.map((s) => `${x(s.createdAt)},${y(s.score as number)}`).join(' ')}
          />
        ) : null}
        {ok.map((s) => (
          <circle key={s.id} class="score-point" cx={x(s.createdAt)} cy={y(s.score as number)} r={3}>
            <title>{`${s.score} at ${new Date(s.createdAt).toLocaleTimeString()}${s.reason ? ` — ${s.reason}` : ''}`}</title>
          </circle>
        ))}
      </svg>
    </figure>
  );
}

/** Scores of the session's turns (the selected event's turn first) and a chart per scorer for the app. */
export function ScoresTab({
  app,
  session,
  selected,
  refreshKey,
}: {
  app?: string;
  session?: string;
  selected?: AdkEvent;
  refreshKey: number;
}) {
  const [scores, setScores] = useState<ScoreRecord[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    setScores(undefined);
    setError(undefined);
    if (!app) return;
    listScores(app)
      .then(setScores)
      .catch((e: Error) => setError(e.message));
  }, [app, session, refreshKey]);
  if (!app) return <p class="muted pad">Pick an app to see its scores.</p>;
  if (error)
    return (
      <p class="pad error-text" role="alert">
        Scores unavailable: {error}
      </p>
    );
  if (!scores) return <p class="muted pad">Loading…</p>;
  const mine = scores.filter((s) => s.sessionId === session);
  const turns = new Map<string, ScoreRecord[]>();
  for (const s of [...mine].sort((a, b) => a.createdAt - b.createdAt))
    turns.set(s.invocationId, [...(turns.get(s.invocationId) ?? []), s]);
  const byScorer = new Map<string, ScoreRecord[]>();
  for (const s of scores) byScorer.set(s.scorerName, [...(byScorer.get(s.scorerName) ?? []), s]);
  const current = selected?.invocationId;
  return (
    <div class="pad scores">
      <h3>Scores per turn</h3>
      {turns.size === 0 ? (
        <p class="muted">
          No turn of this session has been scored yet (scorers sample turns after they end).
        </p>
      ) : (
        <table class="usage scores-table" aria-label="Scores per turn">
          <thead>
            <tr>
              <th scope="col">turn</th>
              <th scope="col">scorer</th>
              <th scope="col">score</th>
              <th scope="col">reason</th>
            </tr>
          </thead>
          <tbody>
            {[...turns.entries()].flatMap(([invocation, list], i) =>
              list.map((s) => (
                <tr
                  key={s.id}
                  data-invocation={invocation}
                  data-status={s.status}
                  class={invocation === current ? 'current' : undefined}
                  aria-current={invocation === current ? 'true' : undefined}
                >
                  <th scope="row">{i + 1}</th>
                  <td>
                    {s.scorerName} <span class="muted small">v{s.scorerVersion}</span>
                  </td>
                  <td>{s.status === 'ok' ? s.score : <span class="error-text">failed</span>}</td>
                  <td>{s.status === 'ok' ? (s.reason ?? '') : (s.error ?? '')}</td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      )}
      <h3>Per scorer over time</h3>
      {byScorer.size === 0 ? (
        <p class="muted">No scores for this app yet.</p>
      ) : (
        [...byScorer.entries()].map(([name, list]) => <ScoreChart key={name} name={name} scores={list} />)
      )}
    </div>
  );
}
