import { runWorker, summarizeError } from '../harness/child.js';
import { fmt, fmtMs } from '../harness/format.js';
import { type PostgresCluster, startPostgres } from '../harness/postgres.js';
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
      report.skipped.push(`real Postgres: ${error instanceof Error ? error.message : String(error)}`);
    }
    try {
      await runLoops(config, report, stores);
      await runOps(config, report, stores);
    } finally {
      await cluster?.stop();
    }
    return report;
  },
};

async function runLoops(config: BenchConfig, report: ScenarioReport, stores: Store[]): Promise<void> {
  const sessions = config.quick ? 2 : 50;
  const turns = config.quick ? 2 : 20;
  const rows: string[][] = [];
  for (const store of stores) {
    if (config.quick && store.store === 'pglite' && stores.length > 1) {
      // PGlite takes seconds to start; the quick mode proves the loop on one store only.
      report.skipped.push(`${sessions} × ${turns} turns on ${store.label}: runs only in the full mode`);
      continue;
    }
    config.log(`  ADK on ${store.label}: ${sessions} × ${turns} turns`);
    const args: AgentLoopArgs = {
      framework: 'adk',
      mode: 'concurrent',
      turns,
      sessions,
      warmupTurns: config.quick ? 1 : 10,
      store: store.store,
      ...(store.postgresUrl ? { postgresUrl: store.postgresUrl } : {}),
    };
    let errorText: string | undefined;
    try {
      const outcome = await runWorker<AgentLoopResult>('agent-loop.ts', args, { timeoutMs: 600_000 });
      if (outcome.kind === 'skip') {
        report.skipped.push(`${sessions} × ${turns} turns on ${store.label}: ${outcome.reason}`);
        continue;
      }
      const result = outcome.value;
      if (result.modelCalls !== 2 * result.turns || result.toolCalls !== result.turns) {
        errorText = `did different work: ${result.modelCalls} model calls, ${result.toolCalls} tool runs for ${result.turns} turns`;
      } else {
        rows.push([
          store.label,
          fmt(turnsPerSecond(result.turns, result.totalMs)),
          fmtMs(percentile(result.turnMs, 50)),
          fmtMs(percentile(result.turnMs, 99)),
          '0',
        ]);
      }
    } catch (error) {
      errorText = summarizeError(error);
    }
    if (errorText) {
      rows.push([store.label, 'n/a', 'n/a', 'n/a', 'failed']);
      report.notes.push(`**Error** on ${store.label}: ${errorText}`);
    }
    report.checks.push({
      scenario: report.title,
      label: `${sessions} × ${turns} turns on ${store.label}: errors`,
      target: 'none',
      measured: errorText ? 'failed' : 'none',
      pass: !errorText,
    });
  }
  if (rows.length > 0) {
    report.tables.push({
      caption: `Scenario 2 (${sessions} sessions × ${turns} turns at once) with @adk/session-sql.`,
      headers: ['store', 'turns/s', 'p50 turn latency', 'p99 turn latency', 'errors'],
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
