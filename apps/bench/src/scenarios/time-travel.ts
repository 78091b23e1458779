import { runWorker, summarizeError } from '../harness/child.js';
import { fmtMs } from '../harness/format.js';
import { type PostgresCluster, postgresSkipped, startPostgres } from '../harness/postgres.js';
import { percentile } from '../harness/stats.js';
import { newReport, type Scenario } from '../harness/types.js';
import type { TimeTravelOpsArgs, TimeTravelOpsResult } from '../workers/time-travel-ops.js';

type Store = { label: string; store: 'pglite' | 'postgres'; postgresUrl?: string };

const TARGET_MS = 20;

/** 11. Rewind and fork of a 1,000-event session (Runner.rewind, Runner.forkSession) on SQL stores. */
export const timeTravel: Scenario = {
  id: 'time-travel',
  title: '11. Time travel',
  async run(config) {
    const report = newReport(this.id, this.title);
    const events = config.quick ? 40 : 1000;
    const rewinds = config.quick ? 5 : 100;
    const forks = config.quick ? 5 : 100;
    const stores: Store[] = [{ label: 'PGlite (in memory)', store: 'pglite' }];
    let cluster: PostgresCluster | undefined;
    if (config.quick) {
      // The quick mode proves the scenario on PGlite; starting a Postgres cluster is for the full run.
      report.skipped.push('Postgres: runs only in the full mode');
    } else {
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
    }
    const rows: string[][] = [];
    const measured = new Map<string, { rewind: number; fork: number }>();
    try {
      for (const store of stores) {
        config.log(`  rewind and fork on ${store.label}, ${events}-event session`);
        const args: TimeTravelOpsArgs = {
          events,
          rewinds,
          forks,
          store: store.store,
          ...(store.postgresUrl ? { postgresUrl: store.postgresUrl } : {}),
        };
        try {
          const outcome = await runWorker<TimeTravelOpsResult>('time-travel-ops.ts', args, {
            timeoutMs: 600_000,
          });
          if (outcome.kind === 'skip') {
            report.skipped.push(`time travel on ${store.label}: ${outcome.reason}`);
            continue;
          }
          const result = outcome.value;
          if (result.forkedEvents < events - 10)
            report.notes.push(`**Error** on ${store.label}: a fork held ${result.forkedEvents} events`);
          const rewind = percentile(result.rewindMs, 50);
          const fork = percentile(result.forkMs, 50);
          measured.set(store.store, { rewind, fork });
          rows.push([
            store.label,
            fmtMs(rewind),
            fmtMs(percentile(result.rewindMs, 99)),
            fmtMs(fork),
            fmtMs(percentile(result.forkMs, 99)),
          ]);
        } catch (error) {
          report.notes.push(`**Error** in time travel on ${store.label}: ${summarizeError(error)}`);
        }
      }
    } finally {
      await cluster?.stop();
    }
    const pg = measured.get('postgres');
    for (const op of ['rewind', 'fork'] as const) {
      const value = pg?.[op];
      report.checks.push({
        scenario: report.title,
        label: `${op} of a ${events}-event session, p50 on loopback Postgres`,
        target: `≤ ${TARGET_MS} ms`,
        measured: value === undefined ? 'n/a' : fmtMs(value),
        pass: value === undefined || config.quick ? undefined : value <= TARGET_MS,
      });
    }
    if (rows.length > 0)
      report.tables.push({
        caption: `A session of ${events} events (${events / 2} turns). Forks copy the log up to one of its last ten events (${forks} forks); then ${rewinds} rewinds, each one turn further back. Each includes the run check and the session read.`,
        headers: ['store', 'rewind p50', 'rewind p99', 'fork p50', 'fork p99'],
        rows,
      });
    return report;
  },
};
