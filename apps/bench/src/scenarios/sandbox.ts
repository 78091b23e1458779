import { fmtMs } from '../harness/format.js';
import { percentile } from '../harness/stats.js';
import { newReport, type Scenario } from '../harness/types.js';

const TARGET_P50_MS = 50;

/**
 * 15. `@adk/environments`: from `exec()` to the first byte of the command's output, for a command
 * that prints at once (`echo`), in the bubblewrap sandbox (new namespaces, mounts, rlimits through
 * prlimit, no network) beside the same command as a plain child process (`UnsafeLocalEnvironment`).
 * Sequential: one command at a time.
 */
export const sandboxScenario: Scenario = {
  id: 'sandbox',
  title: '15. Sandbox start-to-first-output (@adk/environments)',
  async run(config) {
    const report = newReport(this.id, this.title);
    const environments = await import('@adk/environments').catch(() => undefined);
    if (!environments) {
      report.skipped.push('@adk/environments is not built');
      return report;
    }
    const runs = config.quick ? 20 : 200;
    const warmup = config.quick ? 3 : 20;
    const sandbox = new environments.LocalSandboxEnvironment();
    const unsafe = new environments.UnsafeLocalEnvironment();
    try {
      try {
        await sandbox.start();
      } catch (error) {
        report.skipped.push(`bubblewrap sandbox unavailable here: ${(error as Error).message}`);
        return report;
      }
      await unsafe.start();
      const rows: string[][] = [];
      for (const [label, env] of [
        ['bubblewrap sandbox', sandbox],
        ['plain child process (UnsafeLocalEnvironment)', unsafe],
      ] as const) {
        const samples: number[] = [];
        for (let i = 0; i < warmup + runs; i++) {
          const started = performance.now();
          let first = Number.NaN;
          const result = await env.exec(['echo', 'ready'], {
            onOutput: () => {
              if (Number.isNaN(first)) first = performance.now() - started;
            },
          });
          if (result.stdout !== 'ready\n')
            throw new Error(`${label}: unexpected output ${JSON.stringify(result)}`);
          if (i >= warmup) samples.push(first);
        }
        const p50 = percentile(samples, 50);
        const p99 = percentile(samples, 99);
        rows.push([label, String(runs), fmtMs(p50), fmtMs(p99), fmtMs(Math.max(...samples))]);
        config.log(`  ${label}: p50 ${fmtMs(p50)}, p99 ${fmtMs(p99)}`);
        if (env === sandbox) {
          report.checks.push({
            scenario: this.id,
            label: 'bubblewrap sandbox start-to-first-output p50',
            target: `≤ ${TARGET_P50_MS} ms`,
            measured: `${fmtMs(p50)} (p99 ${fmtMs(p99)})`,
            pass: p50 <= TARGET_P50_MS,
          });
        }
      }
      report.notes.push(
        `Load average when the scenario ended: ${(await import('node:os'))
          .loadavg()
          .map((n) => n.toFixed(1))
          .join(
            ', ',
          )} on ${(await import('node:os')).availableParallelism()} cores; both rows pay the machine's process-start cost, the difference is the sandbox's.`,
      );
      report.tables.push({
        caption: `From \`exec(['echo', 'ready'])\` to the first stdout byte, one command at a time, ${warmup} warm-up runs per row. The sandbox creates new user, PID, network, IPC and UTS namespaces, mounts /usr read-only and the workspace, and sets rlimits with prlimit before running echo.`,
        headers: ['environment', 'runs', 'p50', 'p99', 'max'],
        rows,
      });
    } finally {
      await sandbox.close();
      await unsafe.close();
    }
    return report;
  },
};
