import type { CallbackContext, Guardrail, UsageMetadata } from '@adk/core';

/** Prices in a currency unit per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
}

export interface BudgetGuardrailOptions {
  name?: string;
  /** Where the budget applies: one invocation, the session, or all of a user's sessions. */
  scope?: 'run' | 'session' | 'user';
  /** Largest total tokens. */
  maxTokens?: number;
  /** Largest cost, with `prices`. */
  maxCost?: number;
  /** Price per model name (the request's model); `default` for any other. */
  prices?: Record<string, ModelPrice>;
}

/** The state key a user-scoped budget keeps its totals in. */
export const USER_BUDGET_KEY = 'user:adk_budget';

interface Totals {
  tokens: number;
  cost: number;
}

function costOf(usage: UsageMetadata | undefined, price: ModelPrice | undefined): number {
  if (!usage || !price) return 0;
  const input = usage.promptTokenCount ?? 0;
  const output = (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0);
  return (input * price.input + output * price.output) / 1_000_000;
}

function tokensOf(usage: UsageMetadata | undefined): number {
  if (!usage) return 0;
  return usage.totalTokenCount ?? (usage.promptTokenCount ?? 0) + (usage.candidatesTokenCount ?? 0);
}

/**
 * A budget guard: tokens and cost from each model answer's `usageMetadata` and a price table,
 * per run, session or user. It trips on the answer that crosses the budget and, for session and
 * user budgets, on a new message once the budget is spent. Use it as an output and input guardrail.
 */
export function budgetGuardrail(options: BudgetGuardrailOptions): Guardrail {
  const scope = options.scope ?? 'run';
  const priceOf = (model: string) => options.prices?.[model] ?? options.prices?.default;
  const spent = (context: CallbackContext, model: string): Totals => {
    if (scope === 'user') {
      const stored = context.state.get(USER_BUDGET_KEY) as Partial<Totals> | undefined;
      return { tokens: stored?.tokens ?? 0, cost: stored?.cost ?? 0 };
    }
    const totals: Totals = { tokens: 0, cost: 0 };
    const invocation = context.invocationId;
    for (const e of context.session.events) {
      if (!e.usageMetadata || (scope === 'run' && e.invocationId !== invocation)) continue;
      totals.tokens += tokensOf(e.usageMetadata);
      totals.cost += costOf(e.usageMetadata, priceOf(model));
    }
    return totals;
  };
  const over = (t: Totals) =>
    (options.maxTokens !== undefined && t.tokens > options.maxTokens) ||
    (options.maxCost !== undefined && t.cost > options.maxCost);
  const reason = (t: Totals) =>
    `the ${scope} budget is spent (${t.tokens} tokens${options.prices ? `, cost ${t.cost.toFixed(4)}` : ''})`;
  return {
    name: options.name ?? 'budget',
    points: ['input', 'output'],
    check(subject, context) {
      if (subject.point === 'input') {
        if (scope === 'run') return;
        const t = spent(context, '');
        if (over(t) || (options.maxTokens !== undefined && t.tokens >= options.maxTokens))
          return { action: 'tripwire', reason: reason(t) };
        return;
      }
      if (subject.point !== 'output') return;
      const model = subject.request.model || subject.response.modelVersion || '';
      const usage = subject.response.usageMetadata;
      const before = spent(context, model);
      const after = {
        tokens: before.tokens + tokensOf(usage),
        cost: before.cost + costOf(usage, priceOf(model)),
      };
      // The user's totals travel in state, committed with the answer they count.
      if (scope === 'user' && usage) context.state.set(USER_BUDGET_KEY, after);
      if (over(after)) return { action: 'tripwire', reason: reason(after) };
    },
  };
}
