import type { AfterModelArgs, Event, Plugin, RunHookArgs, UsageMetadata } from '@adk/core';
import { evictOldest } from '@adk/core/internal';

/** Prices in currency units per million tokens. */
export interface ModelPrice {
  /** Prompt tokens not served from the provider's cache. */
  input: number;
  output: number;
  /** Prompt tokens served from the cache (default: `input`). */
  cachedInput?: number;
  /** Thinking tokens (default: `output`). */
  thinking?: number;
}

/** Model name (or name prefix, or `'*'` for any) → price. The longest matching prefix wins. */
export type PriceTable = Record<string, ModelPrice>;

export interface UsageTotals {
  /** Model calls counted. */
  calls: number;
  /** Prompt tokens, cached ones included. */
  inputTokens: number;
  /** Response tokens, thinking excluded. */
  outputTokens: number;
  /** Prompt tokens served from the provider's cache. */
  cachedTokens: number;
  thinkingTokens: number;
  totalTokens: number;
  cost: number;
}

export interface UsageReport {
  appName: string;
  userId: string;
  sessionId: string;
  invocationId: string;
  agent: string;
  model: string;
  /** This call. */
  usage: UsageTotals;
  /** Whether the model had a price (otherwise cost is 0). */
  priced: boolean;
  invocation: UsageTotals;
  session: UsageTotals;
  user: UsageTotals;
}

export interface UsageStateKeys {
  /** Default `'usage:invocation'` (session state: the latest invocation's totals, with its id). */
  invocation: string;
  /** Default `'usage:session'`. */
  session: string;
  /** Default `'user:usage'` (user state: shared by all sessions of the user). */
  user: string;
}

export interface UsageAccountingPluginOptions {
  prices?: PriceTable;
  /** Called after every counted model call. */
  onUsage?: (report: UsageReport) => void | Promise<void>;
  /** State keys to write totals to; `false` writes none. */
  stateKeys?: Partial<UsageStateKeys> | false;
  /** Default `'usage_accounting'`. */
  name?: string;
  /** Sessions and users whose running totals are kept in memory (default 10 000 each). */
  maxTracked?: number;
}

export const DEFAULT_USAGE_STATE_KEYS: UsageStateKeys = {
  invocation: 'usage:invocation',
  session: 'usage:session',
  user: 'user:usage',
};

export function emptyUsage(): UsageTotals {
  return {
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedTokens: 0,
    thinkingTokens: 0,
    totalTokens: 0,
    cost: 0,
  };
}

function addUsage(into: UsageTotals, add: UsageTotals): void {
  into.calls += add.calls;
  into.inputTokens += add.inputTokens;
  into.outputTokens += add.outputTokens;
  into.cachedTokens += add.cachedTokens;
  into.thinkingTokens += add.thinkingTokens;
  into.totalTokens += add.totalTokens;
  // Rounded to a billionth, so sums of decimal prices stay readable.
  into.cost = Math.round((into.cost + add.cost) * 1e9) / 1e9;
}

function asTotals(value: unknown): UsageTotals {
  const out = emptyUsage();
  if (typeof value !== 'object' || value === null) return out;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(out) as (keyof UsageTotals)[]) {
    const v = record[key];
    if (typeof v === 'number' && Number.isFinite(v)) out[key] = v;
  }
  return out;
}

/** The price of a model: exact name, else the longest matching prefix, else `'*'`. */
export function findPrice(
  prices: PriceTable,
  model: string,
  options: { wildcard?: boolean } = {},
): ModelPrice | undefined {
  const exact = prices[model];
  if (exact) return exact;
  let best: string | undefined;
  for (const key of Object.keys(prices)) {
    if (key !== '*' && model.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  if (best !== undefined) return prices[best];
  return options.wildcard === false ? undefined : prices['*'];
}

/** Usage and cost of one response (Gemini's convention: thinking tokens are not in the output count). */
export function usageOf(metadata: UsageMetadata, price: ModelPrice | undefined): UsageTotals {
  const input = metadata.promptTokenCount ?? 0;
  const cached = Math.min(input, metadata.cachedContentTokenCount ?? 0);
  const output = metadata.candidatesTokenCount ?? 0;
  const thinking = metadata.thoughtsTokenCount ?? 0;
  const cost = price
    ? ((input - cached) * price.input +
        cached * (price.cachedInput ?? price.input) +
        output * price.output +
        thinking * (price.thinking ?? price.output)) /
      1_000_000
    : 0;
  return {
    calls: 1,
    inputTokens: input,
    outputTokens: output,
    cachedTokens: cached,
    thinkingTokens: thinking,
    totalTokens: metadata.totalTokenCount ?? input + output + thinking,
    cost,
  };
}

/** A Map that forgets its oldest entries past a size. */
class BoundedMap<V> extends Map<string, V> {
  constructor(private readonly max: number) {
    super();
  }
  override set(key: string, value: V): this {
    super.delete(key);
    super.set(key, value);
    evictOldest(this, this.max);
    return this;
  }
}

/**
 * Counts tokens (input, output, cached, thinking) and cost of every model call, per invocation,
 * session and user, from a price table. Totals are written to state (`usage:invocation`,
 * `usage:session`, `user:usage` by default) with the model event, and reported to `onUsage`.
 *
 * Running totals are kept in memory per process (seeded from state), so concurrent calls —
 * parallel agents, several sessions of one user — all count. Several processes writing one user's
 * totals would overwrite each other: use `onUsage` to keep authoritative totals in your own store.
 * Responses served by the response cache cost nothing and are not counted.
 */
export class UsageAccountingPlugin implements Plugin {
  readonly name: string;
  private readonly options: UsageAccountingPluginOptions;
  private readonly keys: UsageStateKeys | undefined;
  private readonly invocations = new Map<string, UsageTotals>();
  private readonly sessions: BoundedMap<UsageTotals>;
  private readonly users: BoundedMap<UsageTotals>;

  constructor(options: UsageAccountingPluginOptions = {}) {
    this.name = options.name ?? 'usage_accounting';
    this.options = options;
    this.keys =
      options.stateKeys === false ? undefined : { ...DEFAULT_USAGE_STATE_KEYS, ...options.stateKeys };
    this.sessions = new BoundedMap(options.maxTracked ?? 10_000);
    this.users = new BoundedMap(options.maxTracked ?? 10_000);
  }

  /** Totals of a running invocation (undefined once it has finished). */
  invocationTotals(invocationId: string): UsageTotals | undefined {
    const t = this.invocations.get(invocationId);
    return t && { ...t };
  }

  sessionTotals(appName: string, userId: string, sessionId: string): UsageTotals | undefined {
    const t = this.sessions.get(`${appName}\u0000${userId}\u0000${sessionId}`);
    return t && { ...t };
  }

  userTotals(appName: string, userId: string): UsageTotals | undefined {
    const t = this.users.get(`${appName}\u0000${userId}`);
    return t && { ...t };
  }

  /** The model that answered (a fallback may have: `modelVersion`), else the one asked, and its price. */
  private priceFor(served: string | undefined, asked: string): { model: string; price?: ModelPrice } {
    const table = this.options.prices ?? {};
    for (const name of [served, asked]) {
      const price = name ? findPrice(table, name, { wildcard: false }) : undefined;
      if (name && price) return { model: name, price };
    }
    const model = served || asked;
    const wildcard = table['*'];
    return wildcard ? { model, price: wildcard } : { model };
  }

  async afterModel({ context, request, response }: AfterModelArgs): Promise<undefined> {
    const metadata = response.usageMetadata;
    if (!metadata || response.partial) return undefined;
    const ctx = context.invocationContext;
    const { model, price } = this.priceFor(response.modelVersion, request.model);
    const usage = usageOf(metadata, price);

    // All updates below happen before any await: concurrent calls cannot lose one.
    const invocation = this.invocations.get(ctx.invocationId) ?? emptyUsage();
    this.invocations.set(ctx.invocationId, invocation);
    addUsage(invocation, usage);

    const sessionKey = `${ctx.appName}\u0000${ctx.userId}\u0000${ctx.session.id}`;
    const session =
      this.sessions.get(sessionKey) ?? asTotals(this.keys && context.state.get(this.keys.session));
    addUsage(session, usage);
    this.sessions.set(sessionKey, session);

    const userKey = `${ctx.appName}\u0000${ctx.userId}`;
    const user = this.users.get(userKey) ?? asTotals(this.keys && context.state.get(this.keys.user));
    addUsage(user, usage);
    this.users.set(userKey, user);

    if (this.keys) {
      context.state.set(this.keys.invocation, { invocationId: ctx.invocationId, ...invocation });
      context.state.set(this.keys.session, { ...session });
      context.state.set(this.keys.user, { ...user });
    }
    await this.options.onUsage?.({
      appName: ctx.appName,
      userId: ctx.userId,
      sessionId: ctx.session.id,
      invocationId: ctx.invocationId,
      agent: context.agentName,
      model,
      usage,
      priced: price !== undefined,
      invocation: { ...invocation },
      session: { ...session },
      user: { ...user },
    });
    return undefined;
  }

  /**
   * Refreshes the totals an event carries right before it is committed: with concurrent sessions
   * of one user, the last commit then holds the latest user totals, not those of its own call.
   */
  onEvent({ context, event }: RunHookArgs & { event: Event }): undefined {
    const keys = this.keys;
    const delta = event.actions.stateDelta;
    if (!keys || !(keys.user in delta)) return undefined;
    const user = this.users.get(`${context.appName}\u0000${context.userId}`);
    if (user) delta[keys.user] = { ...user };
    return undefined;
  }

  afterRun({ context }: RunHookArgs): void {
    this.invocations.delete(context.invocationId);
  }
}
