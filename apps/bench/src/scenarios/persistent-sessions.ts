import { type FrameworkName, frameworkLabels } from '../frameworks/types.js';
import { runWorker, summarizeError } from '../harness/child.js';
import { fmt, fmtMs, fmtRatio } from '../harness/format.js';
import { type PostgresCluster, postgresSkipped, startPostgres } from '../harness/postgres.js';
import { percentile } from '../harness/stats.js';
import { type BenchConfig, newReport, type Scenario, type ScenarioReport } from '../harness/types.js';
import type { AgentLoopArgs, AgentLoopResult } from '../workers/agent-loop.js';
import type { SessionOpsArgs, SessionOpsResult } from '../workers/session-ops.js';
import { turnsPerSecond } from './agent-loop-runs.js';

type Store = { label: string; store: 'pglite' | 'postgres'; postgresUrl?: string };

export const persistentSessions: Scenario = {
  id: 'persistent-sessions',
  title: '4. Persistent sessions',
  async run(config) {
    const report = newReport(this.id, this.title);
    const stores: Store[] = [{ label: 'PGlite (in memory)', store: 'pglite' }];
    let cluster: PostgresCluster | undefined;
    try {
      cluster = await startPostgres();
      stores.push({
        label: `Postgres ${cluster.version} (loopback)`,
        store: 'postgres',
        postgresUrl: cluster.url,
      });
    } catch (error) {
      report.skipped.push(`real Postgres: ${postgresSkipped(error)}`);
    }
    try {
      await runLoops(config, report, stores);
      await runLongTurns(config, report, stores);
      await runOps(config, report, stores);
    } finally {
      await cluster?.stop();
    }
    return report;
  },
};

/** Throughput before this round's session cache and run locks (docs/benchmarks.md of that run). */
const BEFORE_TURNS_PER_S: Record<Store['store'], number> = { pglite: 79.3, postgres: 156.8 };

interface Contender {
  framework: FrameworkName;
  store: Store;
}

function contenders(stores: Store[]): Contender[] {
  const list: Contender[] = [];
  for (const store of stores) {
    list.push({ framework: 'adk', store });
    // @google/adk's DatabaseSessionService (MikroORM) on the very same Postgres.
    if (store.store === 'postgres') list.push({ framework: 'google-adk', store });
  }
  return list;
}

async function runLoop(
  contender: Contender,
  shape: Pick<AgentLoopArgs, 'mode' | 'turns' | 'sessions' | 'warmupTurns'>,
): Promise<{ result?: AgentLoopResult; skip?: string; error?: string }> {
  const { framework, store } = contender;
  const args: AgentLoopArgs = {
    framework,
    ...shape,
    store: store.store,
    ...(store.postgresUrl ? { postgresUrl: store.postgresUrl } : {}),
  };
  try {
    const outcome = await runWorker<AgentLoopResult>('agent-loop.ts', args, { timeoutMs: 600_000 });
    if (outcome.kind === 'skip') return { skip: outcome.reason };
    const result = outcome.value;
    const turns = shape.turns * shape.sessions;
    if (result.modelCalls !== 2 * turns || result.toolCalls !== turns)
      return {
        error: `did different work: ${result.modelCalls} model calls, ${result.toolCalls} tool runs for ${turns} turns`,
      };
    return { result };
  } catch (error) {
    return { error: summarizeError(error) };
  }
}

async function runLoops(config: BenchConfig, report: ScenarioReport, stores: Store[]): Promise<void> {
  const sessions = config.quick ? 2 : 50;
  const turns = config.quick ? 2 : 20;
  const rows: string[][] = [];
  const measured = new Map<string, number>();
  for (const contender of contenders(stores)) {
    const { framework, store } = contender;
    const label = `${frameworkLabels[framework]} on ${store.label}`;
    if (config.quick && store.store === 'pglite' && stores.length > 1) {
      // PGlite takes seconds to start; the quick mode proves the loop on one store only.
      report.skipped.push(`${sessions} × ${turns} turns on ${store.label}: runs only in the full mode`);
      continue;
    }
    config.log(`  ${label}: ${sessions} × ${turns} turns`);
    const outcome = await runLoop(contender, {
      mode: 'concurrent',
      turns,
      sessions,
      warmupTurns: config.quick ? 1 : 10,
    });
    if (outcome.skip) {
      report.skipped.push(`${sessions} × ${turns} turns, ${label}: ${outcome.skip}`);
      continue;
    }
    if (outcome.result) {
      const rate = turnsPerSecond(outcome.result.turns, outcome.result.totalMs);
      measured.set(`${framework}/${store.store}`, rate);
      rows.push([
        frameworkLabels[framework],
        store.label,
        fmt(rate),
        fmtMs(percentile(outcome.result.turnMs, 50)),
        fmtMs(percentile(outcome.result.turnMs, 99)),
        '0',
      ]);
    } else {
      rows.push([frameworkLabels[framework], store.label, 'n/a', 'n/a', 'n/a', 'failed']);
      report.notes.push(`**Error**, ${label}: ${outcome.error}`);
    }
    report.checks.push({
      scenario: report.title,
      label: `${sessions} × ${turns} turns, ${label}: errors`,
      target: 'none',
      measured: outcome.error ? 'failed' : 'none',
      pass: !outcome.error,
    });
  }
  if (!config.quick) {
    for (const store of stores) {
      const ours = measured.get(`adk/${store.store}`);
      const before = BEFORE_TURNS_PER_S[store.store];
      const ratio = ours === undefined ? Number.NaN : ours / before;
      report.checks.push({
        scenario: report.title,
        label: `turns/s on ${store.label} vs the previous release (${before})`,
        target: '≥ 3×',
        measured: Number.isNaN(ratio) ? 'n/a' : fmtRatio(ratio),
        pass: Number.isNaN(ratio) ? undefined : ratio >= 3,
        ...(Number.isNaN(ratio)
          ? {}
          : { ratio: { value: ratio, target: 3, chartLabel: `${store.store} turns/s vs before` } }),
      });
      const theirs = measured.get(`google-adk/${store.store}`);
      if (store.store === 'postgres') {
        const vs = ours !== undefined && theirs !== undefined ? ours / theirs : Number.NaN;
        report.checks.push({
          scenario: report.title,
          label: 'turns/s on Postgres vs @google/adk DatabaseSessionService',
          target: '≥ 5×',
          measured: Number.isNaN(vs) ? 'n/a' : fmtRatio(vs),
          pass: Number.isNaN(vs) ? undefined : vs >= 5,
          ...(Number.isNaN(vs)
            ? {}
            : { ratio: { value: vs, target: 5, chartLabel: 'Postgres turns/s vs @google/adk' } }),
        });
      }
    }
  }
  if (rows.length > 0) {
    report.tables.push({
      caption: `Scenario 2 (${sessions} sessions × ${turns} turns at once) on persistent stores: @adk/session-sql, and @google/adk's DatabaseSessionService on the same Postgres.`,
      headers: ['framework', 'store', 'turns/s', 'p50 turn latency', 'p99 turn latency', 'errors'],
      rows,
    });
  }
}

/** One turn on a session that already holds about 1,000 events: framework + SQL time per turn. */
async function runLongTurns(config: BenchConfig, report: ScenarioReport, stores: Store[]): Promise<void> {
  const postgres = stores.find((store) => store.store === 'postgres');
  if (!postgres) return;
  // 4 events a turn: 250 turns fill the session to 1,000 events, the next ones are measured.
  const fill = config.quick ? 5 : 250;
  const measuredTurns = config.quick ? 5 : 100;
  const rows: string[][] = [];
  let oursP50: number | undefined;
  for (const contender of contenders([postgres])) {
    const label = `${frameworkLabels[contender.framework]} on ${postgres.label}`;
    config.log(`  ${label}: one turn on a ${fill * 4}-event session`);
    const outcome = await runLoop(contender, {
      mode: 'long',
      turns: fill + measuredTurns,
      sessions: 1,
      warmupTurns: config.quick ? 1 : 10,
    });
    if (outcome.skip) {
      report.skipped.push(`long-session turn, ${label}: ${outcome.skip}`);
      continue;
    }
    if (!outcome.result) {
      report.notes.push(`**Error**, long-session turn, ${label}: ${outcome.error}`);
      continue;
    }
    const last = outcome.result.turnMs.slice(fill);
    const p50 = percentile(last, 50);
    if (contender.framework === 'adk') oursP50 = p50;
    rows.push([
      frameworkLabels[contender.framework],
      postgres.label,
      fmtMs(p50),
      fmtMs(percentile(last, 99)),
    ]);
  }
  if (!config.quick) {
    report.checks.push({
      scenario: report.title,
      label: 'a turn on a 1,000-event Postgres session, p50 (framework + SQL)',
      target: '≤ 5 ms',
      measured: oursP50 === undefined ? 'n/a' : fmtMs(oursP50),
      pass: oursP50 === undefined ? undefined : oursP50 <= 5,
    });
  }
  if (rows.length > 0) {
    report.tables.push({
      caption: `One turn (user message → tool call → tool → answer; a scripted model that answers at once) on a session already holding ${fill * 4} events, turn after turn: ${measuredTurns} turns measured.`,
      headers: ['framework', 'store', 'turn p50', 'turn p99'],
      rows,
    });
  }
}

async function runOps(config: BenchConfig, report: ScenarioReport, stores: Store[]): Promise<void> {
  const events = config.quick ? 20 : 1000;
  const gets = config.quick ? 5 : 100;
  const appends = config.quick ? 10 : 200;
  const rows: string[][] = [];
  for (const store of stores) {
    config.log(`  session operations on ${store.label}, ${events}-event session`);
    const args: SessionOpsArgs = {
      events,
      gets,
      appends,
      store: store.store,
      ...(store.postgresUrl ? { postgresUrl: store.postgresUrl } : {}),
    };
    try {
      const outcome = await runWorker<SessionOpsResult>('session-ops.ts', args, { timeoutMs: 600_000 });
      if (outcome.kind === 'skip') {
        report.skipped.push(`session operations on ${store.label}: ${outcome.reason}`);
        continue;
      }
      const result = outcome.value;
      if (result.eventsRead !== events) {
        report.notes.push(
          `**Error** on ${store.label}: getSession returned ${result.eventsRead} of ${events} events`,
        );
      }
      const appendP50 = percentile(result.appendMs, 50);
      rows.push([
        store.label,
        fmtMs(appendP50),
        fmtMs(percentile(result.appendMs, 99)),
        fmtMs(percentile(result.getMs, 50)),
        fmtMs(percentile(result.getMs, 99)),
      ]);
      if (store.store === 'postgres') {
        report.checks.push({
          scenario: report.title,
          label: 'appendEvent p50 on loopback Postgres',
          target: '< 2 ms',
          measured: fmtMs(appendP50),
          pass: appendP50 < 2,
        });
      }
    } catch (error) {
      const message = summarizeError(error);
      report.notes.push(`**Error** in session operations on ${store.label}: ${message}`);
      report.checks.push({
        scenario: report.title,
        label: `session operations on ${store.label}: errors`,
        target: 'none',
        measured: 'failed',
        pass: false,
      });
    }
  }
  if (!stores.some((store) => store.store === 'postgres')) {
    report.checks.push({
      scenario: report.title,
      label: 'appendEvent p50 on loopback Postgres',
      target: '< 2 ms',
      measured: 'n/a',
      pass: undefined,
    });
  }
  if (rows.length > 0) {
    report.tables.push({
      caption: `A session holding ${events} events: ${gets} getSession calls (all events), then ${appends} more appendEvent calls. Postgres runs with its stock, durable settings.`,
      headers: ['store', 'appendEvent p50', 'appendEvent p99', 'getSession p50', 'getSession p99'],
      rows,
    });
  }
}
