/**
 * Tokens and cost of a run, kept on its record when it ends: the sum over the model calls the run
 * committed (events with `usageMetadata`, partial chunks excluded), priced per call by the model
 * that answered (`modelVersion`) with a price table. Cached input and reasoning tokens are counted
 * apart and priced as the price table says (cached input at its cached price, reasoning as output).
 */
import type { Event } from '../events/event.js';
import { type PriceTable, priceTable } from '../telemetry/pricing.js';
import type { RunStore } from './run-store.js';

/** Tokens and cost of a run's model calls (a run record's `usage`), or their sum over runs. */
export interface RunUsage {
  /** Model calls that reported token usage. */
  modelCalls: number;
  /** Input tokens, cached ones included (`promptTokenCount`). */
  inputTokens: number;
  /** Output tokens, reasoning excluded (`candidatesTokenCount`). */
  outputTokens: number;
  /** Input tokens served from a cache (`cachedContentTokenCount`). */
  cachedInputTokens: number;
  /** Reasoning tokens (`thoughtsTokenCount`). */
  reasoningTokens: number;
  /** USD of the priced calls (0 when none was priced). */
  costUsd: number;
  /** Calls whose model has no price (not in `costUsd`). */
  unpricedCalls: number;
}

/** No model call: the start of a sum. */
export const EMPTY_RUN_USAGE: Readonly<RunUsage> = Object.freeze({
  modelCalls: 0,
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  reasoningTokens: 0,
  costUsd: 0,
  unpricedCalls: 0,
});

let defaultPrices: PriceTable | undefined;

/**
 * The usage of a run's events. A call is priced by its event's `modelVersion`, else by the model
 * `modelOf` names for the event (the runner gives its author's configured model).
 */
export function runUsageOf(
  events: readonly Event[],
  options: { prices?: PriceTable; modelOf?: (event: Event) => string | undefined } = {},
): RunUsage {
  if (!options.prices) defaultPrices ??= priceTable();
  const prices = options.prices ?? (defaultPrices as PriceTable);
  const usage: RunUsage = { ...EMPTY_RUN_USAGE };
  for (const event of events) {
    const u = event.usageMetadata;
    if (!u || event.partial) continue;
    const tokens = {
      input: u.promptTokenCount ?? 0,
      output: u.candidatesTokenCount ?? 0,
      cachedInput: u.cachedContentTokenCount ?? 0,
      reasoning: u.thoughtsTokenCount ?? 0,
    };
    usage.modelCalls += 1;
    usage.inputTokens += tokens.input;
    usage.outputTokens += tokens.output;
    usage.cachedInputTokens += tokens.cachedInput;
    usage.reasoningTokens += tokens.reasoning;
    const model = event.modelVersion ?? options.modelOf?.(event);
    const cost = model ? prices.cost(model, tokens) : undefined;
    if (cost === undefined) usage.unpricedCalls += 1;
    else usage.costUsd += cost;
  }
  usage.costUsd = roundUsd(usage.costUsd);
  return usage;
}

/** The sum of several usages (a session's or a user's runs). */
export function addRunUsage(a: RunUsage, b: RunUsage): RunUsage {
  return {
    modelCalls: a.modelCalls + b.modelCalls,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
    costUsd: roundUsd(a.costUsd + b.costUsd),
    unpricedCalls: a.unpricedCalls + b.unpricedCalls,
  };
}

function roundUsd(usd: number): number {
  return Number(usd.toFixed(8));
}

/** Totals of a session's or a user's runs. */
export interface RunUsageTotals {
  /** Runs counted (those without usage, e.g. still running, add nothing). */
  runs: number;
  /** The sum of their `usage`. */
  usage: RunUsage;
}

/**
 * Sums the `usage` of the run records of an app, a user or a session (pages through
 * `listRuns`). Run records, not spans, are the source: they are kept as long as the runs, while
 * spans go with the trace store's retention limits and are not kept at all when tracing is off.
 */
export async function runUsageTotals(
  store: Pick<RunStore, 'listRuns'>,
  params: { appName: string; userId?: string; sessionId?: string },
): Promise<RunUsageTotals> {
  let usage: RunUsage = { ...EMPTY_RUN_USAGE };
  let runs = 0;
  let pageToken: string | undefined;
  do {
    const page = await store.listRuns({ ...params, pageSize: 1000, ...(pageToken ? { pageToken } : {}) });
    for (const run of page.runs) {
      runs += 1;
      if (run.usage) usage = addRunUsage(usage, run.usage);
    }
    pageToken = page.nextPageToken;
  } while (pageToken);
  return { runs, usage };
}
