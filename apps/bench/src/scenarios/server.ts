import { join } from 'node:path';
import { type RunningWorker, runWorker, SkipSignal, startWorker, summarizeError } from '../harness/child.js';
import { fmt, fmtMs, fmtRatio } from '../harness/format.js';
import { type PostgresCluster, postgresSkipped, startPostgres } from '../harness/postgres.js';
import { percentile } from '../harness/stats.js';
import { type Check, newReport, type Scenario, type ScenarioReport } from '../harness/types.js';
import type { ServerLoadArgs, ServerLoadResult } from '../workers/server-load.js';

export interface Target {
  id: string;
  label: string;
  worker: 'server-adk.ts' | 'server-google-devtools.ts';
  args: (ctx: { tmpDir: string; postgresUrl?: string }) => Record<string, unknown> | undefined;
}

const targets: Target[] = [
  {
    id: 'adk-pglite',
    label: '@adk/server, PGlite (default)',
    worker: 'server-adk.ts',
    args: ({ tmpDir }) => ({ store: 'pglite', dataDir: join(tmpDir, `server-pglite-${Date.now()}`) }),
  },
  {
    id: 'adk-postgres',
    label: '@adk/server, Postgres',
    worker: 'server-adk.ts',
    args: ({ postgresUrl }) => (postgresUrl ? { store: 'postgres', postgresUrl } : undefined),
  },
  {
    id: 'adk-memory',
    label: '@adk/server, in memory',
    worker: 'server-adk.ts',
    args: () => ({ store: 'memory' }),
  },
  {
    id: 'devtools-memory',
    label: '@google/adk-devtools api_server, in memory (its default)',
    worker: 'server-google-devtools.ts',
    args: () => ({ store: 'memory' }),
  },
  {
    id: 'devtools-postgres',
    label: '@google/adk-devtools api_server, Postgres (DatabaseSessionService)',
    worker: 'server-google-devtools.ts',
    args: ({ postgresUrl }) => (postgresUrl ? { store: 'postgres', postgresUrl } : undefined),
  },
];

export interface Measured {
  turnsPerSecond: number;
  p50: number;
  p99: number;
  cpuPerTurnMs: number;
}

export const server: Scenario = {
  id: 'server',
  title: '9. ADK API server (/run_sse)',
  async run(config) {
    const report = newReport(this.id, this.title);
    const sessions = config.quick ? 5 : 50;
    const turns = config.quick ? 3 : 20;
    const warmupTurns = config.quick ? 1 : 3;
    let cluster: PostgresCluster | undefined;
    try {
      cluster = await startPostgres();
    } catch (error) {
      report.skipped.push(`Postgres rows: ${postgresSkipped(error)}`);
    }
    const measured = new Map<string, Measured>();
    const rows: string[][] = [];
    try {
      for (const target of targets) {
        const args = target.args({ tmpDir: config.tmpDir, ...(cluster ? { postgresUrl: cluster.url } : {}) });
        if (!args) continue;
        config.log(`  ${target.label}: ${sessions} sessions × ${turns} turns`);
        const outcome = await measure(report, target, args, { sessions, turns, warmupTurns });
        if (!outcome) continue;
        measured.set(target.id, outcome);
        rows.push([
          target.label,
          fmt(outcome.turnsPerSecond),
          fmtMs(outcome.p50),
          fmtMs(outcome.p99),
          `${fmt(outcome.cpuPerTurnMs * 1000, 0)} µs`,
        ]);
      }
    } finally {
      await cluster?.stop();
    }
    if (rows.length > 0) {
      report.tables.push({
        caption: `${sessions} sessions at once, ${turns} turns each, every turn a POST /run_sse read to its end (user message → tool call → tool → answer: four events), from one client process (node:http, keep-alive) on loopback; after ${warmupTurns} warm-up turns per session on other sessions; a fresh server process per row. @google/adk-devtools 2.0.0 runs its own \`AdkApiServer\` (Express), built as its \`adk api_server\` command builds it, with the app loaded by one turn before the warm-up and its log level at WARN.`,
        headers: ['server', 'turns/s', 'p50 turn', 'p99 turn', 'server CPU / turn'],
        rows,
      });
    }
    report.notes.push(
      '@google/adk-devtools 2.0.0 installs with `@mikro-orm/knex` pinned to 6.6.16 (pnpm-workspace.yaml overrides). Its SQLite session store needs the native `sqlite3` build, which cannot be fetched here, so its rows are its default (in memory) and Postgres.',
      'Before its app is loaded, devtools compiles and bundles the app once per incoming request: 50 first requests at once ran its heap out (4 GB) on this machine, hence the single loading turn.',
    );
    const oursPg = measured.get('adk-postgres');
    const theirsPg = measured.get('devtools-postgres');
    report.checks.push(
      ratioCheck(
        report,
        '/run_sse turns/s on the same Postgres: ours ÷ devtools api_server',
        oursPg && theirsPg ? oursPg.turnsPerSecond / theirsPg.turnsPerSecond : Number.NaN,
        5,
        '9 server, Postgres vs devtools on Postgres',
      ),
    );
    const theirsMemory = measured.get('devtools-memory');
    const ratioTo = (id: string) => {
      const ours = measured.get(id);
      return fmtRatio(ours && theirsMemory ? ours.turnsPerSecond / theirsMemory.turnsPerSecond : Number.NaN);
    };
    for (const [id, label] of [
      ['adk-memory', 'both in memory: ours ÷ devtools api_server'],
      ['adk-pglite', 'ours on PGlite (our default, durable) ÷ devtools api_server in memory (its default)'],
      ['adk-postgres', 'ours on Postgres ÷ devtools api_server in memory'],
    ] as const) {
      report.checks.push({
        scenario: report.title,
        label: `/run_sse turns/s, ${label}`,
        target: '(no target)',
        measured: ratioTo(id),
        pass: undefined,
      });
    }
    return report;
  },
};

function ratioCheck(
  report: ScenarioReport,
  label: string,
  ratio: number,
  target: number,
  chartLabel: string,
): Check {
  return {
    scenario: report.title,
    label,
    target: `≥ ${target}×`,
    measured: fmtRatio(ratio),
    pass: Number.isFinite(ratio) ? ratio >= target : undefined,
    ratio: { value: ratio, target, chartLabel },
  };
}

export async function measure(
  report: ScenarioReport,
  target: Target,
  args: Record<string, unknown>,
  load: { sessions: number; turns: number; warmupTurns: number },
): Promise<Measured | undefined> {
  let running: RunningWorker<{ url: string }>;
  try {
    running = await startWorker<{ url: string }>(target.worker, args, 180_000);
  } catch (error) {
    if (error instanceof SkipSignal) report.skipped.push(`${target.label}: ${error.message}`);
    else report.notes.push(`**Error** starting ${target.label}: ${summarizeError(error)}`);
    return undefined;
  }
  let result: ServerLoadResult | undefined;
  try {
    const base = { url: running.info.url, sessions: load.sessions };
    const warm = await runWorker<ServerLoadResult>(
      'server-load.ts',
      { ...base, turns: load.warmupTurns, prefix: 'warm' } satisfies ServerLoadArgs,
      { timeoutMs: 600_000 },
    );
    if (warm.kind === 'result' && warm.value.errors > 0) {
      report.notes.push(`**Error** from ${target.label}: ${warm.value.firstError}`);
    } else {
      running.signal('SIGUSR2');
      const outcome = await runWorker<ServerLoadResult>(
        'server-load.ts',
        { ...base, turns: load.turns, prefix: 'measured' } satisfies ServerLoadArgs,
        { timeoutMs: 600_000 },
      );
      if (outcome.kind === 'result') result = outcome.value;
    }
  } catch (error) {
    report.notes.push(`**Error** loading ${target.label}: ${summarizeError(error)}`);
  }
  const usage = await running.stop<{ cpuMs: number }>();
  if (!result) return undefined;
  if (result.errors > 0) {
    report.notes.push(`**Errors** from ${target.label}: ${result.errors}; first: ${result.firstError}`);
  }
  const done = result.latencyMs.length;
  return {
    turnsPerSecond: (done * 1000) / result.totalMs,
    p50: percentile(result.latencyMs, 50),
    p99: percentile(result.latencyMs, 99),
    cpuPerTurnMs: usage && done > 0 ? usage.cpuMs / done : Number.NaN,
  };
}
