import { type RunningWorker, runWorker, SkipSignal, startWorker, summarizeError } from '../harness/child.js';
import { fmt, fmtMs, fmtRatio } from '../harness/format.js';
import { percentile } from '../harness/stats.js';
import { newReport, type Scenario } from '../harness/types.js';
import type { ServerLoadArgs, ServerLoadResult } from '../workers/server-load.js';

type Mode = 'run_sse' | 'chat' | 'ag-ui' | 'mastra-chat';

const LABELS: Record<Mode, string> = {
  run_sse: 'POST /run_sse (ADK)',
  chat: 'POST /apps/{app}/chat (AI SDK UI message stream)',
  'ag-ui': 'POST /apps/{app}/ag-ui (AG-UI)',
  'mastra-chat': "Mastra's AI SDK chat route (handleChatStream)",
};

/**
 * 16. The front-end protocol routes against `/run_sse` on the same server and app: the same turns
 * through each, so the ratio is the protocols' own cost (translation, SSE framing, request mapping).
 */
export const frontends: Scenario = {
  id: 'frontends',
  title: '16. Front-end protocols (/chat, /ag-ui) vs /run_sse',
  async run(config) {
    const report = newReport(this.id, this.title);
    const sessions = config.quick ? 5 : 50;
    const turns = config.quick ? 3 : 20;
    const rounds = config.quick ? 1 : 2;
    let running: RunningWorker<{ url: string }>;
    try {
      running = await startWorker<{ url: string }>(
        'server-adk.ts',
        { store: 'memory', dataDir: '' },
        180_000,
      );
    } catch (error) {
      if (error instanceof SkipSignal) report.skipped.push(`@adk/server: ${error.message}`);
      else report.notes.push(`**Error** starting @adk/server: ${summarizeError(error)}`);
      return report;
    }
    // Mastra serving the same scripted agent through its AI SDK chat route, driven by the same client.
    let mastra: RunningWorker<{ url: string }> | undefined;
    try {
      mastra = await startWorker<{ url: string }>('server-mastra.ts', {}, 180_000);
    } catch (error) {
      if (error instanceof SkipSignal) report.skipped.push(`Mastra: ${error.message}`);
      else report.notes.push(`**Error** starting Mastra's chat route: ${summarizeError(error)}`);
    }
    const modes: Mode[] = ['run_sse', 'chat', 'ag-ui', ...(mastra ? (['mastra-chat'] as const) : [])];
    const results = new Map<Mode, ServerLoadResult[]>();
    try {
      const load = async (mode: Mode, prefix: string, n: number) => {
        const url =
          mode === 'mastra-chat' ? (mastra as RunningWorker<{ url: string }>).info.url : running.info.url;
        const outcome = await runWorker<ServerLoadResult>(
          'server-load.ts',
          {
            url,
            sessions,
            turns: n,
            prefix,
            mode: mode === 'mastra-chat' ? 'chat' : mode,
          } satisfies ServerLoadArgs,
          { timeoutMs: 600_000 },
        );
        if (outcome.kind !== 'result') throw new Error(`${mode}: the load generator gave no result`);
        if (outcome.value.errors > 0)
          throw new Error(
            `${mode}: ${outcome.value.errors} failed turns; first: ${outcome.value.firstError}`,
          );
        return outcome.value;
      };
      for (const mode of modes) await load(mode, `warm-${mode}`, 1);
      // Interleaved rounds, so a drift of the machine's load touches every route alike.
      for (let round = 0; round < rounds; round++) {
        for (const mode of modes) {
          config.log(`  ${LABELS[mode]}: ${sessions} sessions × ${turns} turns (round ${round + 1})`);
          const result = await load(mode, `m${round}-${mode}`, turns);
          results.set(mode, [...(results.get(mode) ?? []), result]);
        }
      }
    } catch (error) {
      report.notes.push(`**Error**: ${summarizeError(error)}`);
    } finally {
      await running.stop();
      await mastra?.stop();
    }
    const rate = (mode: Mode) => {
      const list = results.get(mode) ?? [];
      const turnsDone = list.reduce((sum, r) => sum + r.latencyMs.length, 0);
      const ms = list.reduce((sum, r) => sum + r.totalMs, 0);
      return ms > 0 ? (turnsDone * 1000) / ms : Number.NaN;
    };
    const rows: string[][] = [];
    for (const mode of modes) {
      const list = results.get(mode);
      if (!list) continue;
      const latencies = list.flatMap((r) => r.latencyMs);
      rows.push([
        LABELS[mode],
        fmt(rate(mode)),
        fmtMs(percentile(latencies, 50)),
        fmtMs(percentile(latencies, 99)),
        String(list.at(-1)?.eventsPerTurn ?? ''),
      ]);
    }
    if (rows.length > 0)
      report.tables.push({
        caption: `${sessions} sessions at once, ${turns} turns each, the same turn (user message → tool call → tool → answer) through each route of one @adk/server process (sessions in memory, so the routes' own cost shows), ${rounds} interleaved round(s) per route after one warm-up turn each; one client process (node:http, keep-alive) on loopback. Each chat/AG-UI request carries only the new user message.`,
        headers: ['route', 'turns/s', 'p50 turn', 'p99 turn', 'frames / turn'],
        rows,
      });
    const base = rate('run_sse');
    for (const mode of ['chat', 'ag-ui'] as const) {
      const ratio = rate(mode) / base;
      report.checks.push({
        scenario: report.title,
        label: `turns/s through ${mode === 'chat' ? '/chat' : '/ag-ui'} ÷ /run_sse, same server and app`,
        target: '≥ 0.9×',
        measured: fmtRatio(ratio),
        pass: Number.isFinite(ratio) ? ratio >= 0.9 : undefined,
        ratio: { value: ratio, target: 0.9, chartLabel: `16 ${mode} ÷ run_sse` },
      });
    }
    if (results.has('mastra-chat')) {
      const ratio = rate('chat') / rate('mastra-chat');
      report.checks.push({
        scenario: report.title,
        label: "turns/s through our /chat ÷ Mastra's AI SDK chat route, same scripted agent and client",
        target: '≥ 5×',
        measured: fmtRatio(ratio),
        pass: Number.isFinite(ratio) ? ratio >= 5 : undefined,
        ratio: { value: ratio, target: 5, chartLabel: '16 chat ÷ Mastra chat' },
      });
      report.notes.push(
        "Mastra: `@mastra/core` `Agent` + `Mastra` with the same tool and a scripted model (the AI SDK's LanguageModelV2 contract, answering at once), served by `handleChatStream` of `@mastra/ai-sdk` (what its `chatRoute` runs) in a Hono route on @hono/node-server with the AI SDK's `createUIMessageStreamResponse`; no Mastra memory, so Mastra keeps no history between turns (less work than ours, which loads and appends the session).",
      );
    }
    return report;
  },
};
