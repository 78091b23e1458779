import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { AdkEvent } from '../api/types.js';
import { usageTotals } from '../lib/conversation.js';
import { formatCost, formatTokens } from '../lib/cost.js';
import { shortId } from '../lib/format.js';
import { type RunRecord, type RunUsage, runsApi } from '../runs/runs-api.js';

interface Costs {
  /** USD per model call, by the id of the event it produced (its span's `adk.usage.cost_usd`). */
  perCall: Map<string, number>;
  /** The session's runs (turns), with their usage. */
  runs: RunRecord[];
  session?: RunUsage;
}

/**
 * What the session's model calls cost: per call from the trace (each model call's span carries
 * its cost), per turn from the run records, per session from the server's totals of those records.
 * A server without them (ADK's own, or tracing off) shows tokens only.
 */
async function loadCosts(app: string, user: string, session: string): Promise<Costs> {
  const [spans, runs, totals] = await Promise.all([
    api.sessionTrace(app, session).catch(() => []),
    runsApi.list(app, user, session, { pageSize: 1000 }).catch(() => [] as RunRecord[]),
    runsApi.sessionUsage(app, user, session).catch(() => undefined),
  ]);
  const perCall = new Map<string, number>();
  for (const s of spans) {
    const eventId = s.attributes['gcp.vertex.agent.event_id'];
    const cost = s.attributes['adk.usage.cost_usd'];
    if (typeof eventId === 'string' && typeof cost === 'number') perCall.set(eventId, cost);
  }
  return { perCall, runs, ...(totals ? { session: totals.usage } : {}) };
}

export function UsageTab({
  events,
  onSelect,
  app,
  user,
  session,
  refreshKey = 0,
}: {
  events: AdkEvent[];
  onSelect: (id: string) => void;
  app?: string;
  user?: string;
  session?: string;
  refreshKey?: number;
}) {
  const steps = events.filter((e) => e.usageMetadata && !e.partial);
  const totals = usageTotals(events);
  const [costs, setCosts] = useState<Costs | undefined>();
  useEffect(() => {
    setCosts(undefined);
    if (!app || !user || !session) return;
    let live = true;
    void loadCosts(app, user, session).then((c) => {
      if (live) setCosts(c);
    });
    return () => {
      live = false;
    };
  }, [app, user, session, refreshKey, steps.length]);
  const turns = (costs?.runs ?? []).filter((r) => r.usage).reverse();
  const cached = steps.reduce((n, e) => n + (e.usageMetadata?.cachedContentTokenCount ?? 0), 0);
  const reasoning = steps.reduce((n, e) => n + (e.usageMetadata?.thoughtsTokenCount ?? 0), 0);
  return (
    <div class="pad">
      <h3>Session</h3>
      <dl class="totals">
        <div>
          <dt>model steps</dt>
          <dd>{totals.steps}</dd>
        </div>
        <div>
          <dt>prompt tokens</dt>
          <dd>{totals.prompt}</dd>
        </div>
        <div>
          <dt>response tokens</dt>
          <dd>{totals.candidates}</dd>
        </div>
        <div>
          <dt>total tokens</dt>
          <dd>{totals.total}</dd>
        </div>
        <div>
          <dt>cached input</dt>
          <dd>{cached}</dd>
        </div>
        <div>
          <dt>reasoning</dt>
          <dd>{reasoning}</dd>
        </div>
        <div class="usage-cost">
          <dt>cost</dt>
          <dd>{formatCost(costs?.session?.costUsd)}</dd>
        </div>
      </dl>
      {costs?.session && costs.session.unpricedCalls > 0 ? (
        <p class="muted small">
          {costs.session.unpricedCalls} model call(s) of a model without a price are not in the cost.
        </p>
      ) : null}
      <h3>Per turn</h3>
      {turns.length === 0 ? (
        <p class="muted">No run of this session has recorded its usage.</p>
      ) : (
        <table class="usage usage-turns">
          <thead>
            <tr>
              <th scope="col">turn</th>
              <th scope="col">calls</th>
              <th scope="col">prompt</th>
              <th scope="col">response</th>
              <th scope="col">cached</th>
              <th scope="col">reasoning</th>
              <th scope="col">cost</th>
            </tr>
          </thead>
          <tbody>
            {turns.map((r, i) => (
              <tr key={r.runId} data-invocation-id={r.invocationId}>
                <th scope="row" title={r.invocationId}>
                  {i + 1}. {shortId(r.invocationId)}
                </th>
                <td>{r.usage?.modelCalls}</td>
                <td>{formatTokens(r.usage?.inputTokens)}</td>
                <td>{formatTokens(r.usage?.outputTokens)}</td>
                <td>{formatTokens(r.usage?.cachedInputTokens)}</td>
                <td>{formatTokens(r.usage?.reasoningTokens)}</td>
                <td>{formatCost(r.usage?.costUsd)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Per step</h3>
      {steps.length === 0 ? (
        <p class="muted">No event of this session reports token usage.</p>
      ) : (
        <table class="usage usage-steps">
          <thead>
            <tr>
              <th scope="col">step</th>
              <th scope="col">prompt</th>
              <th scope="col">response</th>
              <th scope="col">cached</th>
              <th scope="col">reasoning</th>
              <th scope="col">total</th>
              <th scope="col">cost</th>
            </tr>
          </thead>
          <tbody>
            {steps.map((e, i) => (
              <tr key={e.id} data-event-id={e.id}>
                <th scope="row">
                  <button type="button" class="link" onClick={() => onSelect(e.id)}>
                    {i + 1}. {e.author}
                  </button>
                </th>
                <td>{e.usageMetadata?.promptTokenCount ?? 0}</td>
                <td>{e.usageMetadata?.candidatesTokenCount ?? 0}</td>
                <td>{e.usageMetadata?.cachedContentTokenCount ?? 0}</td>
                <td>{e.usageMetadata?.thoughtsTokenCount ?? 0}</td>
                <td>{e.usageMetadata?.totalTokenCount ?? 0}</td>
                <td>{formatCost(costs?.perCall.get(e.id))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
