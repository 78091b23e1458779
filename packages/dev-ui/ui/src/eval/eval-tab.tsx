import './eval-tab.css';
import { useEffect, useState } from 'preact/hooks';
import { type EvalCaseResult, type EvalInvocation, evalApi, textOf, toolCalls } from './eval-api.js';

const STATUS = { 1: 'PASSED', 2: 'FAILED', 3: 'NOT EVALUATED' } as const;

function Status({ value }: { value: 1 | 2 | 3 }) {
  return (
    <span class={`badge eval-${value === 1 ? 'passed' : value === 2 ? 'failed' : 'skipped'}`}>
      {STATUS[value]}
    </span>
  );
}

function fmt(score: number | null | undefined): string {
  return typeof score === 'number' ? score.toFixed(3) : '—';
}

function Side({ title, inv }: { title: string; inv: EvalInvocation | undefined }) {
  const calls = toolCalls(inv);
  return (
    <section class="eval-side" aria-label={title}>
      <h5>{title}</h5>
      {calls.length === 0 ? (
        <p class="muted">no tool calls</p>
      ) : (
        <ol>
          {calls.map((c, i) => (
            <li key={i}>
              <code>
                {c.name}({JSON.stringify(c.args ?? {})})
              </code>
            </li>
          ))}
        </ol>
      )}
      <p>{textOf(inv?.finalResponse) || <em>no final response</em>}</p>
    </section>
  );
}

export function CaseResult({ result }: { result: EvalCaseResult }) {
  return (
    <article class="eval-case" aria-label={`Eval case ${result.evalId}`}>
      <h4>
        {result.evalId} <Status value={result.finalEvalStatus} />
      </h4>
      <table class="delta">
        <thead>
          <tr>
            <th scope="col">metric</th>
            <th scope="col">score</th>
            <th scope="col">threshold</th>
            <th scope="col">status</th>
          </tr>
        </thead>
        <tbody>
          {result.overallEvalMetricResults.map((m) => (
            <tr key={m.metricName}>
              <th scope="row">
                <code>{m.metricName}</code>
              </th>
              <td>{fmt(m.score)}</td>
              <td>{m.threshold ?? '—'}</td>
              <td>
                <Status value={m.evalStatus} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {result.evalMetricResultPerInvocation.map((p, i) => (
        <div class="eval-turn" key={i}>
          <p>
            <b>Turn {i + 1}:</b> {textOf(p.actualInvocation.userContent)}
          </p>
          <div class="eval-sbs">
            <Side title="Expected" inv={p.expectedInvocation} />
            <Side title="Actual" inv={p.actualInvocation} />
          </div>
        </div>
      ))}
    </article>
  );
}

const METRICS = [
  { metricName: 'tool_trajectory_avg_score', threshold: 1 },
  { metricName: 'response_match_score', threshold: 0.8 },
];

/** Eval sets of the app: create one, add the current session as a case, run, browse results. */
export function EvalTab({ app, user, session }: { app?: string; user: string; session?: string }) {
  const [sets, setSets] = useState<string[]>([]);
  const [set, setSet] = useState<string>('');
  const [cases, setCases] = useState<string[]>([]);
  const [newSet, setNewSet] = useState('');
  const [caseId, setCaseId] = useState('');
  const [thresholds, setThresholds] = useState(METRICS.map((m) => m.threshold));
  const [results, setResults] = useState<EvalCaseResult[] | undefined>();
  const [history, setHistory] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();

  const guard = async (work: () => Promise<void>) => {
    setError(undefined);
    setBusy(true);
    try {
      await work();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const reloadSets = async (pick?: string) => {
    if (!app) return;
    const ids = await evalApi.listSets(app);
    setSets(ids);
    setSet((current) => pick ?? (ids.includes(current) ? current : (ids[0] ?? '')));
    setHistory(await evalApi.listResults(app));
  };

  useEffect(() => {
    setResults(undefined);
    void guard(() => reloadSets());
  }, [app]);
  useEffect(() => {
    setCases([]);
    if (app && set) void guard(async () => setCases(await evalApi.listCases(app, set)));
  }, [app, set]);

  if (!app) return <p class="pad muted">Pick an app to evaluate it.</p>;
  return (
    <div class="pad eval-tab">
      {error ? (
        <p role="alert" class="error">
          {error}
        </p>
      ) : null}
      <h3>Eval sets</h3>
      <form
        class="eval-row"
        onSubmit={(e) => {
          e.preventDefault();
          const id = newSet.trim();
          if (id)
            void guard(async () => {
              await evalApi.createSet(app, id);
              setNewSet('');
              await reloadSets(id);
            });
        }}
      >
        <select
          aria-label="Eval set"
          value={set}
          onChange={(e) => setSet((e.target as HTMLSelectElement).value)}
        >
          {sets.length === 0 ? <option value="">(none yet)</option> : null}
          {sets.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <input
          aria-label="New eval set id"
          placeholder="new_set_id"
          value={newSet}
          onInput={(e) => setNewSet((e.target as HTMLInputElement).value)}
        />
        <button type="submit" class="btn small" disabled={busy || !newSet.trim()}>
          Create eval set
        </button>
      </form>
      {set ? (
        <>
          <form
            class="eval-row"
            onSubmit={(e) => {
              e.preventDefault();
              const id = caseId.trim();
              if (id && session)
                void guard(async () => {
                  await evalApi.addSession(app, set, id, user, session);
                  setCaseId('');
                  setCases(await evalApi.listCases(app, set));
                });
            }}
          >
            <input
              aria-label="Eval case id"
              placeholder="case_id"
              value={caseId}
              onInput={(e) => setCaseId((e.target as HTMLInputElement).value)}
            />
            <button type="submit" class="btn small" disabled={busy || !session || !caseId.trim()}>
              Add current session
            </button>
          </form>
          <p class="muted">
            {cases.length === 0
              ? 'No cases yet: chat, then add the session as a case.'
              : `Cases: ${cases.join(', ')}`}
          </p>
          <fieldset class="eval-row">
            <legend>Thresholds</legend>
            {METRICS.map((m, i) => (
              <label key={m.metricName}>
                <code>{m.metricName}</code>{' '}
                <input
                  type="number"
                  min={0}
                  max={1}
                  step={0.05}
                  aria-label={`${m.metricName} threshold`}
                  value={thresholds[i]}
                  onInput={(e) => {
                    const next = [...thresholds];
                    next[i] = Number((e.target as HTMLInputElement).value);
                    setThresholds(next);
                  }}
                />
              </label>
            ))}
          </fieldset>
          <button
            type="button"
            class="btn"
            disabled={busy || cases.length === 0}
            onClick={() =>
              void guard(async () => {
                setResults(undefined);
                const metrics = METRICS.map((m, i) => ({
                  metricName: m.metricName,
                  threshold: thresholds[i] ?? m.threshold,
                }));
                setResults(await evalApi.run(app, set, cases, metrics));
                setHistory(await evalApi.listResults(app));
              })
            }
          >
            {busy ? 'Running…' : 'Run eval'}
          </button>
        </>
      ) : null}
      {results ? (
        <section aria-label="Eval results">
          <h3>Results</h3>
          {results.map((r) => (
            <CaseResult key={r.evalId} result={r} />
          ))}
        </section>
      ) : null}
      {history.length > 0 ? (
        <section aria-label="Past eval results">
          <h3>Past results</h3>
          <select
            aria-label="Past result"
            value=""
            onChange={(e) => {
              const id = (e.target as HTMLSelectElement).value;
              if (id) void guard(async () => setResults((await evalApi.getResult(app, id)).evalCaseResults));
            }}
          >
            <option value="">Open a past result…</option>
            {history.map((h) => (
              <option key={h} value={h}>
                {h}
              </option>
            ))}
          </select>
        </section>
      ) : null}
    </div>
  );
}
