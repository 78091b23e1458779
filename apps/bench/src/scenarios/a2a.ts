import { type RunningWorker, runWorker, SkipSignal, startWorker, summarizeError } from '../harness/child.js';
import { fmt, fmtMs, fmtRatio } from '../harness/format.js';
import { percentile } from '../harness/stats.js';
import { newReport, type Scenario, type ScenarioReport } from '../harness/types.js';
import type { A2aLoadArgs, A2aLoadResult } from '../workers/a2a-load.js';

const servers = [
  { id: 'adk', label: '@adk/a2a', worker: 'a2a-adk-server.ts' },
  { id: 'sdk', label: '@a2a-js/sdk (Express)', worker: 'a2a-sdk-server.ts' },
] as const;
const modes = [
  { mode: 'send', label: 'SendMessage' },
  { mode: 'stream', label: 'SendStreamingMessage' },
] as const;

type Server = (typeof servers)[number];
type Mode = (typeof modes)[number];
interface Measured {
  rps: number;
  /** Server CPU time per request, ms. */
  cpuPerRequestMs: number;
}

export const a2a: Scenario = {
  id: 'a2a',
  title: '7. A2A',
  async run(config) {
    const report = newReport(this.id, this.title);
    const requests = config.quick ? 40 : 4000;
    const concurrency = config.quick ? 2 : 16;
    const warmup = config.quick ? 10 : 500;
    const measured = new Map<string, Measured>();
    const rows: string[][] = [];
    const skippedServers = new Set<string>();
    for (const mode of modes) {
      for (const server of servers) {
        if (skippedServers.has(server.id)) continue;
        config.log(`  ${server.label}: ${requests} × ${mode.label}, ${concurrency} in flight`);
        const outcome = await measure(report, server, mode, { requests, concurrency, warmup });
        if (outcome === 'skip') skippedServers.add(server.id);
        if (!outcome || outcome === 'skip') continue;
        measured.set(`${server.id}:${mode.mode}`, outcome.measured);
        rows.push([
          server.label,
          mode.label,
          fmt(outcome.measured.rps),
          fmtMs(percentile(outcome.result.latencyMs, 50)),
          fmtMs(percentile(outcome.result.latencyMs, 99)),
          `${fmt(outcome.measured.cpuPerRequestMs * 1000, 0)} µs`,
          String(outcome.result.errors),
        ]);
      }
    }
    if (rows.length > 0) {
      report.tables.push({
        caption: `${requests} JSON-RPC requests per row from one client process (node:http, keep-alive) on loopback, ${concurrency} in flight, after ${warmup} warm-up requests; a fresh server process per row. The same trivial agent behind each server: a task that goes submitted → working → one text artifact → completed (four events when streamed).`,
        headers: [
          'server',
          'request',
          'requests/s',
          'p50 latency',
          'p99 latency',
          'server CPU / request',
          'errors',
        ],
        rows,
      });
    }
    for (const mode of modes) {
      const ours = measured.get(`adk:${mode.mode}`);
      const theirs = measured.get(`sdk:${mode.mode}`);
      const ratio = ours && theirs ? ours.rps / theirs.rps : Number.NaN;
      report.checks.push({
        scenario: report.title,
        label: `${mode.label} requests/s vs @a2a-js/sdk`,
        target: '≥ 2×',
        measured: fmtRatio(ratio),
        pass: Number.isFinite(ratio) ? ratio >= 2 : undefined,
        ratio: { value: ratio, target: 2, chartLabel: `7 A2A ${mode.label} vs @a2a-js/sdk` },
      });
      const cpuRatio = ours && theirs ? theirs.cpuPerRequestMs / ours.cpuPerRequestMs : Number.NaN;
      report.checks.push({
        scenario: report.title,
        label: `${mode.label} server CPU per request: @a2a-js/sdk ÷ ours`,
        target: '(no target)',
        measured: fmtRatio(cpuRatio),
        pass: undefined,
      });
    }
    return report;
  },
};

async function measure(
  report: ScenarioReport,
  server: Server,
  mode: Mode,
  load: { requests: number; concurrency: number; warmup: number },
): Promise<{ result: A2aLoadResult; measured: Measured } | 'skip' | undefined> {
  let running: RunningWorker<{ url: string }>;
  try {
    running = await startWorker<{ url: string }>(server.worker, {});
  } catch (error) {
    if (error instanceof SkipSignal) report.skipped.push(`${server.label}: ${error.message}`);
    else report.notes.push(`**Error** starting ${server.label}: ${summarizeError(error)}`);
    return 'skip';
  }
  let result: A2aLoadResult | undefined;
  try {
    const base = { url: running.info.url, mode: mode.mode, concurrency: load.concurrency };
    const warm = await runWorker<A2aLoadResult>(
      'a2a-load.ts',
      { ...base, requests: load.warmup } as A2aLoadArgs,
      {
        timeoutMs: 300_000,
      },
    );
    if (warm.kind === 'result' && warm.value.errors > 0) {
      report.notes.push(`**Error** from ${server.label} (${mode.label}): ${warm.value.firstError}`);
    } else {
      running.signal('SIGUSR2');
      const outcome = await runWorker<A2aLoadResult>(
        'a2a-load.ts',
        { ...base, requests: load.requests } as A2aLoadArgs,
        { timeoutMs: 300_000 },
      );
      if (outcome.kind === 'result') result = outcome.value;
    }
  } catch (error) {
    report.notes.push(`**Error** loading ${server.label} (${mode.label}): ${summarizeError(error)}`);
  }
  const usage = await running.stop<{ cpuMs: number }>();
  if (!result) return undefined;
  if (result.errors > 0) {
    report.notes.push(
      `**Errors** from ${server.label} (${mode.label}): ${result.errors}; first: ${result.firstError}`,
    );
  }
  const done = result.latencyMs.length;
  return {
    result,
    measured: {
      rps: (done * 1000) / result.totalMs,
      cpuPerRequestMs: usage && done > 0 ? usage.cpuMs / done : Number.NaN,
    },
  };
}
