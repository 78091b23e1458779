import { loadavg } from 'node:os';
import { runWorker } from '../harness/child.js';
import { fmtMs } from '../harness/format.js';
import { startSseServer } from '../harness/sse-server.js';
import { median, percentile } from '../harness/stats.js';
import { newReport, type Scenario } from '../harness/types.js';
import { startVendorSseServer, VENDORS, type Vendor } from '../harness/vendor-streams.js';
import type { AiSdkPathArgs, AiSdkPathResult } from '../workers/ai-sdk-path.js';
import type { ProviderPathArgs, ProviderPathResult } from '../workers/provider-path.js';
import type { ProviderVendorsArgs, ProviderVendorsResult } from '../workers/provider-vendors.js';

const VENDOR_LABELS: Record<Vendor, string> = {
  chat: '@adk/models-openai `OpenAIChat` (Chat Completions)',
  responses: '@adk/models-openai `OpenAIResponses` (Responses)',
  claude: '@adk/models-claude `Claude` (Messages)',
  gemini: '@adk/models-gemini `Gemini` (generateContent)',
  interactions: '@adk/models-gemini `GeminiInteractions` (Interactions)',
};

export const providerPath: Scenario = {
  id: 'provider-path',
  title: '6. Provider path',
  async run(config) {
    const report = newReport(this.id, this.title);
    const deltas = config.quick ? 200 : 5000;
    // The server runs in this (otherwise idle) process; the client in a fresh child.
    const server = await startSseServer(deltas);
    try {
      const args: ProviderPathArgs = {
        baseUrl: server.url,
        iterations: config.quick ? 4 : 30,
        warmup: config.quick ? 1 : 5,
      };
      config.log(`  ${server.events} SSE events per response, ${args.iterations} streams each way`);
      const outcome = await runWorker<ProviderPathResult>('provider-path.ts', args, { timeoutMs: 600_000 });
      if (outcome.kind === 'skip') {
        report.skipped.push(outcome.reason);
        report.checks.push(
          {
            scenario: report.title,
            label: 'overhead to first event',
            target: '< 1 ms',
            measured: 'n/a',
            pass: undefined,
          },
          {
            scenario: report.title,
            label: 'total time vs the baseline (fetch + SSE split + JSON.parse)',
            target: '≤ 1.5×',
            measured: 'n/a',
            pass: undefined,
          },
        );
        return report;
      }
      const result = outcome.value;
      if (result.fetchEvents !== server.events) {
        report.notes.push(`**Error**: the bare fetch saw ${result.fetchEvents} of ${server.events} events`);
      }
      const expectedText = textLength(deltas);
      if (result.adkTextLength !== expectedText) {
        report.notes.push(
          `**Error**: @adk/models-openai aggregated ${result.adkTextLength} characters, expected ${expectedText}`,
        );
      }
      // The baseline is what any client must do: fetch, split the SSE events, JSON.parse each one.
      const adkFirst = median(result.adk.map((sample) => sample.firstMs));
      const fetchFirst = median(result.fetchParse.map((sample) => sample.firstMs));
      const adkTotal = median(result.adk.map((sample) => sample.totalMs));
      const fetchTotal = median(result.fetchParse.map((sample) => sample.totalMs));
      const undiciTotal = median(result.undiciParse.map((sample) => sample.totalMs));
      report.tables.push({
        caption: `One local SSE response of ${server.events} Chat Completions events (${deltas} text deltas), read ${args.iterations} times each way, alternating; medians. ${result.adkPartials} partial responses per stream through ADK.`,
        headers: ['client', 'time to first event', 'total time'],
        rows: [
          ['@adk/models-openai (`generate`, streaming)', fmtMs(adkFirst), fmtMs(adkTotal)],
          [
            'bare `fetch` + SSE split + `JSON.parse` of every event: the baseline',
            fmtMs(fetchFirst),
            fmtMs(fetchTotal),
          ],
          [
            'undici `request` + SSE split + `JSON.parse` of every event',
            fmtMs(median(result.undiciParse.map((sample) => sample.firstMs))),
            fmtMs(undiciTotal),
          ],
          [
            'bare `fetch` + SSE split, no JSON (for reference)',
            fmtMs(median(result.fetch.map((sample) => sample.firstMs))),
            fmtMs(median(result.fetch.map((sample) => sample.totalMs))),
          ],
        ],
      });
      report.notes.push(
        `Overhead per event through @adk/models-openai over the baseline: ${(((adkTotal - fetchTotal) / server.events) * 1000).toFixed(1)} µs (validation, conversion to LlmResponse, aggregation, the async steps).`,
        `Transport: undici's own \`request\` takes ${(undiciTotal / fetchTotal).toFixed(2)}× the time of global \`fetch\` for the same work; ${undiciTotal < fetchTotal ? 'undici `request` is the faster transport' : 'global `fetch` is the faster transport'}; @adk/core's HTTP layer uses \`fetch\`.`,
      );
      const firstOverhead = adkFirst - fetchFirst;
      const ratio = adkTotal / fetchTotal;
      report.checks.push({
        scenario: report.title,
        label: 'overhead to first event',
        target: '< 1 ms',
        measured: fmtMs(firstOverhead),
        pass: firstOverhead < 1,
      });
      report.checks.push({
        scenario: report.title,
        label: 'total time vs the baseline (fetch + SSE split + JSON.parse)',
        target: '≤ 1.5×',
        measured: `${ratio.toFixed(2)}×`,
        pass: ratio <= 1.5,
      });
    } finally {
      await server.close();
    }
    await eachVendor(report, config);
    await aiSdkAdapter(report, config);
    return report;
  },
};

/** Every vendor's wire format against its own bare fetch + SSE split + JSON.parse baseline. */
async function eachVendor(report: ReturnType<typeof newReport>, config: Parameters<Scenario['run']>[0]) {
  const deltas = config.quick ? 200 : 5000;
  const server = await startVendorSseServer(deltas);
  const loadBefore = loadavg()[0] ?? Number.NaN;
  try {
    // Other work on the machine shifts single samples by more than the overheads measured here:
    // many alternating pairs, and each figure is the median over pairs with its interquartile range.
    const args: ProviderVendorsArgs = {
      origin: server.origin,
      iterations: config.quick ? 4 : 80,
      warmup: config.quick ? 1 : 10,
    };
    const outcome = await runWorker<ProviderVendorsResult>('provider-vendors.ts', args, {
      timeoutMs: 900_000,
    });
    if (outcome.kind === 'skip') {
      report.skipped.push(outcome.reason);
      return;
    }
    const rows: string[][] = [];
    const expectedText = textLength(deltas);
    for (const vendor of VENDORS) {
      const result = outcome.value[vendor];
      if (result.baselineEvents !== server.events[vendor])
        report.notes.push(
          `**Error**: the ${vendor} baseline saw ${result.baselineEvents} of ${server.events[vendor]} events`,
        );
      if (result.adkTextLength !== expectedText)
        report.notes.push(
          `**Error**: ${VENDOR_LABELS[vendor]} aggregated ${result.adkTextLength} characters, expected ${expectedText}`,
        );
      const adkFirst = median(result.adk.map((s) => s.firstMs));
      const baseFirst = median(result.baseline.map((s) => s.firstMs));
      const adkTotal = median(result.adk.map((s) => s.totalMs));
      const baseTotal = median(result.baseline.map((s) => s.totalMs));
      // Pairs: the provider's run and the baseline's run next to it (they alternate).
      const ratios = result.adk.map((s, i) => s.totalMs / (result.baseline[i]?.totalMs ?? Number.NaN));
      const firstOverheads = result.adk.map(
        (s, i) => s.firstMs - (result.baseline[i]?.firstMs ?? Number.NaN),
      );
      const ratio = median(ratios);
      const firstOverhead = median(firstOverheads);
      const firstCpuOverheads = result.adk.map(
        (s, i) => s.firstCpuMs - (result.baseline[i]?.firstCpuMs ?? Number.NaN),
      );
      const cpuRatios = result.adk.map((s, i) => s.cpuMs / (result.baseline[i]?.cpuMs ?? Number.NaN));
      rows.push([
        VENDOR_LABELS[vendor],
        String(server.events[vendor]),
        fmtMs(adkFirst),
        fmtMs(baseFirst),
        `${fmtMs(firstOverhead)} (${fmtMs(percentile(firstOverheads, 25))} to ${fmtMs(percentile(firstOverheads, 75))})`,
        fmtMs(adkTotal),
        fmtMs(baseTotal),
        `${ratio.toFixed(2)}× (${percentile(ratios, 25).toFixed(2)}–${percentile(ratios, 75).toFixed(2)})`,
        `${fmtMs(median(firstCpuOverheads))} (${fmtMs(percentile(firstCpuOverheads, 25))} to ${fmtMs(percentile(firstCpuOverheads, 75))})`,
        `${median(cpuRatios).toFixed(2)}× (${percentile(cpuRatios, 25).toFixed(2)}–${percentile(cpuRatios, 75).toFixed(2)})`,
      ]);
      report.checks.push(
        {
          scenario: report.title,
          label: `${vendor}: overhead to first event`,
          target: '< 1 ms',
          measured: fmtMs(firstOverhead),
          pass: firstOverhead < 1,
        },
        {
          scenario: report.title,
          label: `${vendor}: total time vs its baseline`,
          target: '≤ 1.3×',
          measured: `${ratio.toFixed(2)}×`,
          pass: ratio <= 1.3,
        },
      );
    }
    const loadAfter = loadavg()[0] ?? Number.NaN;
    report.tables.push({
      caption: `Each vendor's streaming wire format, ${deltas} text deltas per response (in that vendor's framing), read ${args.iterations} times through the provider and through its baseline (bare \`fetch\` + SSE split + \`JSON.parse\` of every event's \`data:\` line), alternating; medians. The overhead to first event and the ratio are medians over the ${args.iterations} pairs of neighbouring runs, with their interquartile range; the CPU-time columns compare the client process's CPU time (user + system) for each stream (and until its first event), which other processes on the machine shift far less than wall time. Load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after.`,
      headers: [
        'provider',
        'events',
        'first event',
        'baseline first',
        'first-event overhead',
        'total',
        'baseline total',
        'ratio',
        'first-event CPU overhead',
        'CPU-time ratio',
      ],
      rows,
    });
  } finally {
    await server.close();
  }
}

/** Characters of text the stream carries: `token<i % 100> ` per delta. */
function textLength(deltas: number): number {
  let length = 0;
  for (let i = 0; i < deltas; i++) length += `token${i % 100} `.length;
  return length;
}

/** @adk/models-ai-sdk against `streamText` on the same AI SDK model, in the same run. */
async function aiSdkAdapter(report: ReturnType<typeof newReport>, config: Parameters<Scenario['run']>[0]) {
  const args: AiSdkPathArgs = {
    deltas: config.quick ? 200 : 5000,
    iterations: config.quick ? 4 : 30,
    warmup: config.quick ? 1 : 5,
  };
  const outcome = await runWorker<AiSdkPathResult>('ai-sdk-path.ts', args, { timeoutMs: 900_000 });
  if (outcome.kind === 'skip') {
    report.skipped.push(outcome.reason);
    return;
  }
  const result = outcome.value;
  const expected = textLength(args.deltas);
  if (result.adkTextLength !== expected || result.streamTextLength !== expected)
    report.notes.push(
      `**Error**: text lengths ${result.adkTextLength} (ADK) and ${result.streamTextLength} (streamText), expected ${expected}`,
    );
  const adk = median(result.adk.map((s) => s.totalMs));
  const direct = median(result.streamText.map((s) => s.totalMs));
  const ratio = adk / direct;
  report.tables.push({
    caption: `One AI SDK \`MockLanguageModelV4\` streaming ${args.deltas} text deltas, read ${args.iterations} times through @adk/models-ai-sdk and through the AI SDK's \`streamText\` (its \`textStream\`), alternating; medians.`,
    headers: ['client', 'time to first event', 'total time'],
    rows: [
      [
        '@adk/models-ai-sdk `aiSdkModel(model).generate` (streaming)',
        fmtMs(median(result.adk.map((s) => s.firstMs))),
        fmtMs(adk),
      ],
      [
        '`streamText({ model })` directly',
        fmtMs(median(result.streamText.map((s) => s.firstMs))),
        fmtMs(direct),
      ],
    ],
  });
  report.checks.push({
    scenario: report.title,
    label: 'AI SDK adapter vs `streamText` on the same model',
    target: '≤ 1.05×',
    measured: `${ratio.toFixed(2)}×`,
    pass: ratio <= 1.05,
  });
}
