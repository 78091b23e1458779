import { join } from 'node:path';
import { runWorker, summarizeError } from '../harness/child.js';
import { fmt, fmtMs } from '../harness/format.js';
import { type PostgresCluster, postgresSkipped, startPostgres } from '../harness/postgres.js';
import { percentile } from '../harness/stats.js';
import { newReport, type Scenario } from '../harness/types.js';
import type { StorageOpsArgs, StorageOpsResult } from '../workers/storage-ops.js';

/** Artifact save/load of a 1 MiB file and memory search over 10,000 events, per SQL store. */
export const storage: Scenario = {
  id: 'storage',
  title: '8. Artifacts and memory in SQL',
  async run(config) {
    const report = newReport(this.id, this.title);
    const stores: { label: string; url: string }[] = [
      { label: 'SQLite (file)', url: `sqlite://${join(config.tmpDir, 'storage-bench.db')}` },
    ];
    if (config.quick) {
      report.skipped.push('PGlite and Postgres: run only in the full mode');
    } else {
      stores.unshift({ label: 'PGlite (in memory)', url: 'pglite://memory' });
    }
    let cluster: PostgresCluster | undefined;
    if (!config.quick) {
      try {
        cluster = await startPostgres();
        stores.push({ label: `Postgres ${cluster.version} (loopback)`, url: cluster.url });
      } catch (error) {
        report.skipped.push(`real Postgres: ${postgresSkipped(error)}`);
      }
    }
    const args: Omit<StorageOpsArgs, 'url'> = config.quick
      ? { artifactBytes: 1024 * 1024, saves: 3, loads: 3, events: 300, searches: 5 }
      : { artifactBytes: 1024 * 1024, saves: 50, loads: 100, events: 10_000, searches: 200 };
    const rows: string[][] = [];
    try {
      for (const store of stores) {
        config.log(`  artifacts and memory on ${store.label}`);
        try {
          const outcome = await runWorker<StorageOpsResult>(
            'storage-ops.ts',
            { ...args, url: store.url },
            { timeoutMs: 600_000 },
          );
          if (outcome.kind === 'skip') {
            report.skipped.push(`${store.label}: ${outcome.reason}`);
            continue;
          }
          const r = outcome.value;
          if (r.searchHits !== args.searches)
            report.notes.push(
              `**Error** on ${store.label}: ${r.searchHits} of ${args.searches} searches ranked their event first`,
            );
          rows.push([
            store.label,
            fmtMs(percentile(r.saveMs, 50)),
            fmtMs(percentile(r.saveMs, 99)),
            fmtMs(percentile(r.loadMs, 50)),
            fmtMs(percentile(r.loadMs, 99)),
            `${fmt(r.indexMs / 1000, 2)} s`,
            fmtMs(percentile(r.searchMs, 50)),
            fmtMs(percentile(r.searchMs, 99)),
          ]);
        } catch (error) {
          report.notes.push(`**Error** on ${store.label}: ${summarizeError(error)}`);
        }
      }
    } finally {
      await cluster?.stop();
    }
    if (rows.length > 0) {
      report.tables.push({
        caption: `@adk/session-sql through createSqlStores: ${args.saves} saves and ${args.loads} loads of one ${args.artifactBytes / (1024 * 1024)} MiB binary artifact (versions of one name), then ${args.events.toLocaleString('en-US')} events added to memory (one session per 1,000) and ${args.searches} searches (a four-word question naming one event, limit 10; each must rank that event first). Postgres runs with its stock, durable settings.`,
        headers: [
          'store',
          'save 1 MiB p50',
          'save p99',
          'load 1 MiB p50',
          'load p99',
          `index ${args.events.toLocaleString('en-US')} events`,
          'search p50',
          'search p99',
        ],
        rows,
      });
    }
    return report;
  },
};
