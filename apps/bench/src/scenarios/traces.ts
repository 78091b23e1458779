// Traces persisted beside the sessions (issue 39): (a) what span persistence costs a Postgres
// server under the 50 × 20 /run_sse load of the server scenario (same workers), against the same
// run with tracing off; (b) listing the newest 50 of 100,000 stored traces over HTTP
// (`GET /debug/traces`) on Postgres.

import { type RunningWorker, SkipSignal, startWorker, summarizeError } from '../harness/child.js';
import { fmt, fmtMs, fmtRatio } from '../harness/format.js';
import { freshDatabase, type PostgresCluster, postgresSkipped, startPostgres } from '../harness/postgres.js';
import { bootstrapInterval, median, percentile } from '../harness/stats.js';
import { newReport, type Scenario, type ScenarioReport } from '../harness/types.js';
import { type Measured, measure } from './server.js';

const PERSISTENCE_TARGET = 0.95;
const LIST_P50_TARGET_MS = 20;

export const tracesScenario: Scenario = {
  id: 'traces',
  title: '20. Persisted traces',
  async run(config) {
    const report = newReport(this.id, this.title);
    await persistenceCost(report, config.quick, config.log);
    await newestTraces(report, config.quick, config.log);
    return report;
  },
};

async function withPostgres(
  report: ScenarioReport,
  what: string,
  body: (cluster: PostgresCluster) => Promise<void>,
): Promise<void> {
  let cluster: PostgresCluster;
  try {
    cluster = await startPostgres();
  } catch (error) {
    report.skipped.push(`${what}: ${postgresSkipped(error)}`);
    return;
  }
  try {
    await body(cluster);
  } finally {
    await cluster.stop();
  }
}

/**
 * (a) turns/s with spans persisted ÷ with tracing off on one Postgres. Every run gets a fresh server
 * process and a fresh database after a checkpoint, so no run inherits the rows and checkpoint debt
 * of the runs before it, and one uncounted run warms the cluster first. A round runs tracing off and
 * metadata capture twice each, mirrored (off, on, on, off; the next round on, off, off, on); every
 * third round puts one full-capture run at its centre (off, on, full, on, off), and the round after
 * it one run with spans kept in the process only (not persisted), so a drift of the machine's speed
 * during a round weighs on every mode alike. A round's ratio is the mean turns/s of its runs of a
 * mode ÷ the mean of its two runs with tracing off; the check is the median of the rounds' ratios.
 */
async function persistenceCost(
  report: ScenarioReport,
  quick: boolean,
  log: (m: string) => void,
): Promise<void> {
  const sessions = quick ? 5 : 50;
  const turns = quick ? 3 : 20;
  const warmupTurns = quick ? 1 : 3;
  // Runs of one mode differ by up to 15% (the machine's speed drifts within seconds), so the ratio
  // is taken over 12 mirrored rounds: with 4 the median moved by ±6% between whole bench runs, and
  // with 8 by ±3%. Full capture and spans kept in process only (no targets) run at the centre of
  // every third round each, so that the time goes to the pair the check compares.
  const rounds = quick ? 1 : 12;
  await withPostgres(report, 'span persistence cost', async (cluster) => {
    // `adk api_server` captures metadata only; `adk web` (and createAdkServer's default) the full
    // model request and response of every call, serialized and redacted before it is stored.
    const modes = [
      { id: 'off', label: 'tracing off', tracing: false, content: undefined },
      {
        id: 'on',
        label: 'spans persisted, metadata (adk api_server)',
        tracing: true,
        content: 'metadata',
      },
      { id: 'full', label: 'spans persisted, full content (adk web)', tracing: true, content: 'full' },
      // What tracing cost before spans were persisted: the same spans, kept in the process only.
      {
        id: 'memory',
        label: 'spans in process only, metadata (not persisted)',
        tracing: true,
        content: 'metadata',
        persist: false,
      },
    ] as const;
    const [off, on, full, memory] = modes;
    /** The run at a round's centre: full capture, spans in process only, or none. */
    const centreOf = (round: number) =>
      quick ? [full, memory] : round % 3 === 2 ? [full] : round % 3 === 0 ? [memory] : [];
    const perRound: Map<string, Measured[]>[] = [];
    const rows: string[][] = [];
    /** One run of `mode` on a new database of the cluster (dropped after it). */
    const runMode = async (mode: (typeof modes)[number], database: string, label: string) => {
      const fresh = await freshDatabase(cluster, database);
      return measure(
        report,
        { id: `traces-${mode.id}`, label, worker: 'server-adk.ts', args: () => undefined },
        {
          store: 'postgres',
          postgresUrl: fresh.url,
          tracing: mode.tracing,
          ...(mode.content ? { traceContent: mode.content } : {}),
          ...('persist' in mode ? { persistSpans: mode.persist } : {}),
        },
        { sessions, turns, warmupTurns },
      ).finally(() => fresh.drop());
    };
    // One uncounted run first: the cluster's first run after its start is the slowest of all, and it
    // would fall on whichever mode the first round starts with.
    if (!quick) {
      log(`  warm-up run (not counted): ${sessions} sessions × ${turns} turns`);
      await runMode(on, 'traces_warmup', '@adk/server, Postgres, warm-up');
    }
    for (let round = 1; round <= rounds; round++) {
      const measured = new Map<string, Measured[]>();
      perRound.push(measured);
      const centre = centreOf(round);
      const order = round % 2 === 1 ? [off, on, ...centre, on, off] : [on, off, ...centre, off, on];
      for (const [run, mode] of order.entries()) {
        const label = `@adk/server, Postgres, ${mode.label}`;
        log(`  ${label} (round ${round}): ${sessions} sessions × ${turns} turns`);
        const outcome = await runMode(mode, `traces_${round}_${run}_${mode.id}`, label);
        if (!outcome) continue;
        rows.push([
          label,
          String(round),
          fmt(outcome.turnsPerSecond),
          fmtMs(outcome.p50),
          fmtMs(outcome.p99),
          `${fmt(outcome.cpuPerTurnMs * 1000, 0)} µs`,
        ]);
        measured.set(mode.id, [...(measured.get(mode.id) ?? []), outcome]);
      }
    }
    if (rows.length > 0)
      report.tables.push({
        caption: `Span persistence on Postgres: ${sessions} sessions at once, ${turns} turns each through POST /run_sse (the server scenario's load workers and app), a fresh server process and a fresh database (after a checkpoint) per row, each round running tracing off, metadata capture, metadata capture, tracing off (every other round: metadata, off, off, metadata), with ${quick ? 'a full-capture run and a run with spans kept in the process only (not persisted) at the centre of the round' : 'one full-capture run at the centre of every third round and one run with spans kept in the process only (not persisted) at the centre of the rounds after those'}, so that each mode's runs centre on the same moment (with tracing on, the spans of every turn are batched into the sessions' database off the request path); ${rounds} round(s)${quick ? '' : ' after one uncounted warm-up run'}. Compared: the median over rounds of each mode's mean turns/s in a round ÷ tracing off's mean in the same round.`,
        headers: ['server', 'round', 'turns/s', 'p50 turn', 'p99 turn', 'server CPU / turn'],
        rows,
      });
    const meanOf = (runs: Measured[], value: (m: Measured) => number) =>
      runs.reduce((sum, r) => sum + value(r), 0) / runs.length;
    // A mode's turns/s in a round ÷ tracing off's, each the mean of the round's runs of the mode
    // (two for off and metadata, mirrored in time; one for a mode at the round's centre).
    const turnsOf = (m: Measured) => m.turnsPerSecond;
    const meanTurns = (runs: Measured[] | undefined) =>
      runs && runs.length > 0 ? meanOf(runs, turnsOf) : undefined;
    const roundRatios = (id: string) =>
      perRound.flatMap((measured) => {
        const withMode = meanTurns(measured.get(id));
        const without = meanTurns(measured.get('off'));
        // A round with a failed run of off or metadata is not mirrored any more: it is left out.
        const whole =
          (measured.get('off')?.length ?? 0) === 2 && (id !== 'on' || measured.get('on')?.length === 2);
        return withMode !== undefined && without !== undefined && whole ? [withMode / without] : [];
      });
    const ratioOf = (id: string) => {
      const ratios = roundRatios(id);
      return ratios.length > 0 ? median(ratios) : Number.NaN;
    };
    const ratio = ratioOf('on');
    const onRatios = roundRatios('on');
    // How far the median could move with other rounds of the same machine: rounds drawn again with
    // replacement (a 90% percentile bootstrap over the rounds' ratios).
    let interval = '';
    if (onRatios.length > 2) {
      const [low, high] = bootstrapInterval(onRatios, median);
      interval = ` (90% interval ${fmtRatio(low)}–${fmtRatio(high)})`;
    }
    const listed = (id: string) => roundRatios(id).map(fmtRatio).join(', ');
    if (onRatios.length > 1)
      report.notes.push(
        `Span persistence, turns/s ÷ tracing off in each round: metadata ${listed('on')}; full content ${listed('full')}; in process only ${listed('memory')}.`,
      );
    // Every run of a mode pooled: the effect's size without the median's choice of one round.
    const pooled = (id: string) => perRound.flatMap((measured) => measured.get(id) ?? []);
    const [offRuns, onRuns] = [pooled('off'), pooled('on')];
    if (offRuns.length > 1 && onRuns.length > 1) {
      const cpuUsOf = (m: Measured) => m.cpuPerTurnMs * 1000;
      const [onTurns, offTurns] = [meanOf(onRuns, turnsOf), meanOf(offRuns, turnsOf)];
      const [onCpu, offCpu] = [meanOf(onRuns, cpuUsOf), meanOf(offRuns, cpuUsOf)];
      report.notes.push(
        `Pooled over every run (${onRuns.length} with metadata capture, ${offRuns.length} with tracing off): ${fmt(onTurns)} ÷ ${fmt(offTurns)} turns/s = ${fmtRatio(onTurns / offTurns)}; server CPU per turn ${fmt(onCpu, 0)} µs against ${fmt(offCpu, 0)} µs.`,
      );
    }
    report.checks.push({
      scenario: report.title,
      label:
        '/run_sse turns/s on Postgres, spans persisted (metadata, as adk api_server) ÷ tracing off, median of the per-round ratios',
      target: `≥ ${PERSISTENCE_TARGET}×`,
      measured: `${fmtRatio(ratio)}${interval}`,
      pass: Number.isFinite(ratio) ? ratio >= PERSISTENCE_TARGET : undefined,
      ratio: { value: ratio, target: PERSISTENCE_TARGET, chartLabel: '20 traces, persisted ÷ off' },
    });
    const fullRatio = ratioOf('full');
    if (Number.isFinite(fullRatio))
      report.notes.push(
        `With full content capture (adk web's default: every model call's request and response serialized, redacted and stored), /run_sse turns/s ÷ tracing off (median over rounds): ${fmtRatio(fullRatio)}.`,
      );
    const memoryRatio = ratioOf('memory');
    if (Number.isFinite(memoryRatio))
      report.notes.push(
        `With spans kept in the process only (metadata capture, no trace store: what tracing cost before spans were persisted), /run_sse turns/s ÷ tracing off (median over rounds): ${fmtRatio(memoryRatio)}.`,
      );
  });
}

/** (b) p50 of `GET /debug/traces?limit=50` with 100,000 traces stored on Postgres. */
async function newestTraces(report: ScenarioReport, quick: boolean, log: (m: string) => void): Promise<void> {
  const stored = quick ? 10_000 : 100_000;
  const requests = quick ? 50 : 300;
  await withPostgres(report, 'newest traces listing', async (cluster) => {
    let sessionSql: typeof import('@adk/session-sql');
    try {
      sessionSql = await import('@adk/session-sql');
    } catch (error) {
      report.skipped.push(
        `newest traces listing: @adk/session-sql cannot be loaded: ${summarizeError(error)}`,
      );
      return;
    }
    log(`  seeding ${stored} traces on Postgres`);
    const seedStarted = performance.now();
    const stores = await sessionSql.createSqlStores(cluster.url);
    try {
      await seedTraces(stores.traces, stored);
    } finally {
      await stores.close();
    }
    const seedMs = performance.now() - seedStarted;
    let running: RunningWorker<{ url: string }>;
    try {
      running = await startWorker<{ url: string }>(
        'server-adk.ts',
        { store: 'postgres', postgresUrl: cluster.url },
        180_000,
      );
    } catch (error) {
      if (error instanceof SkipSignal) report.skipped.push(`newest traces listing: ${error.message}`);
      else report.notes.push(`**Error** starting the server on the seeded traces: ${summarizeError(error)}`);
      return;
    }
    const latencies: number[] = [];
    const filtered: number[] = [];
    try {
      const url = `${running.info.url}/debug/traces?limit=50`;
      const get = async (target: string, out?: number[]) => {
        const t0 = performance.now();
        const res = await fetch(target);
        const body = (await res.json()) as { traces?: unknown[] };
        if (!res.ok || body.traces?.length !== 50) throw new Error(`GET ${target}: ${res.status}`);
        out?.push(performance.now() - t0);
      };
      for (let i = 0; i < 20; i++) await get(url);
      for (let i = 0; i < requests; i++) await get(url, latencies);
      const byUser = `${running.info.url}/debug/traces?limit=50&app=bench&user=user-7&status=ok`;
      for (let i = 0; i < 5; i++) await get(byUser);
      for (let i = 0; i < requests; i++) await get(byUser, filtered);
    } catch (error) {
      report.notes.push(`**Error** listing traces: ${summarizeError(error)}`);
    } finally {
      await running.stop();
    }
    if (latencies.length === 0) return;
    const p50 = percentile(latencies, 50);
    report.tables.push({
      caption: `Listing traces over HTTP from @adk/server on Postgres with ${stored.toLocaleString('en-US')} traces stored (one span each, seeded in ${fmt(seedMs / 1000)} s through SqlTraceStore.writeSpans in batches); ${requests} sequential requests after 20 warm-up ones, each answer read and checked to hold 50 traces.`,
      headers: ['request', 'p50', 'p99'],
      rows: [
        ['GET /debug/traces?limit=50 (newest 50)', fmtMs(p50), fmtMs(percentile(latencies, 99))],
        ...(filtered.length > 0
          ? [
              [
                'GET /debug/traces?limit=50&app=…&user=…&status=ok',
                fmtMs(percentile(filtered, 50)),
                fmtMs(percentile(filtered, 99)),
              ],
            ]
          : []),
      ],
    });
    report.checks.push({
      scenario: report.title,
      label: `newest 50 of ${stored.toLocaleString('en-US')} stored traces over HTTP, p50`,
      target: `≤ ${LIST_P50_TARGET_MS} ms`,
      measured: fmtMs(p50),
      pass: p50 <= LIST_P50_TARGET_MS,
    });
  });
}

/** Writes `count` finished traces of one span each, newest last, spread over the past hours. */
async function seedTraces(
  store: { writeSpans: import('@adk/core').TraceStore['writeSpans'] },
  count: number,
): Promise<void> {
  const batch = 5000;
  const nowNs = Date.now() * 1e6;
  for (let first = 0; first < count; first += batch) {
    const spans: import('@adk/core').StoredSpan[] = [];
    const traces: import('@adk/core').TraceSummary[] = [];
    for (let i = first; i < Math.min(count, first + batch); i++) {
      const traceId = i.toString(16).padStart(32, '0');
      // 100 ms apart, ending now: 100,000 traces cover under 3 hours (within the 7-day retention).
      const start = nowNs - (count - i) * 1e8;
      const end = start + 2e7;
      const session = `s-${i % 5000}`;
      const user = `user-${i % 50}`;
      spans.push({
        name: 'invocation',
        span_id: i.toString(16).padStart(16, '0'),
        trace_id: traceId,
        parent_span_id: null,
        start_time: start,
        end_time: end,
        attributes: { 'gen_ai.conversation.id': session, 'adk.invocation_id': `e-${i}` },
        status: i % 20 === 0 ? 'error' : 'unset',
      });
      traces.push({
        trace_id: traceId,
        name: 'invocation',
        app_name: 'bench',
        user_id: user,
        session_id: session,
        invocation_id: `e-${i}`,
        start_time: start,
        end_time: end,
        duration_ms: 20,
        status: i % 20 === 0 ? 'error' : 'ok',
        span_count: 1,
        error_count: i % 20 === 0 ? 1 : 0,
        input_tokens: 120,
        output_tokens: 30,
        cost_usd: 0.0001,
      });
    }
    await store.writeSpans(spans, traces);
  }
}
