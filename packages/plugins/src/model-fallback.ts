import {
  type AfterModelArgs,
  type BeforeModelArgs,
  type CallbackContext,
  CancelledError,
  ConfigError,
  describeError,
  errorCodeOf,
  firstResult,
  isAdkError,
  type Llm,
  type LlmRequest,
  type LlmResponse,
  type ModelErrorArgs,
  type Plugin,
  type RetryConfig,
} from '@adk/core';
import { isApiCallError } from '@adk/core/http';
import { CircuitBreaker, type CircuitBreakerOptions, type CircuitState } from './circuit-breaker.js';
import { type Clock, systemClock } from './clock.js';

/** @deprecated Use `retry` ({@link RetryConfig}), the one retry configuration. */
export interface BackoffOptions {
  /** First delay (default 500 ms). */
  initialMs?: number;
  /** Growth per attempt (default 2). */
  multiplier?: number;
  /** Longest delay (default 10 s). */
  maxMs?: number;
  /** Randomize each delay between half and all of it (default true). */
  jitter?: boolean;
}

export interface FallbackAttempt {
  model: string;
  /** `undefined` when the call was not made because the model's circuit is open. */
  error?: string;
  skipped?: 'circuit_open';
}

export interface ModelFallbackPluginOptions {
  /** Models tried in order after the agent's own: model objects, or names resolved by the runner's registry. */
  fallbacks: (string | Llm)[];
  /** Default `'model_fallback'`. */
  name?: string;
  /**
   * Retries on the same model for retryable errors (core's one `RetryConfig`): `maxAttempts` per
   * model (default 3), `initialDelay(Ms)` (0.5 s), `maxDelay(Ms)` (10 s), `backoffFactor` (2),
   * `jitter` (0: none; otherwise each delay is randomized between half and all of it; default on).
   */
  retry?: RetryConfig;
  /** @deprecated Use `retry.maxAttempts` (= `maxRetries + 1`). */
  maxRetries?: number;
  /** @deprecated Use `retry`. */
  backoff?: BackoffOptions;
  /** Whether an error is worth retrying on the same model (default: an API error's `isRetryable`; network errors yes; unusable responses no). */
  isRetryable?: (error: unknown) => boolean;
  /** Whether to recover from an error at all (default: everything but cancellation). */
  shouldFallback?: (error: unknown) => boolean;
  /** Per-model circuit breakers (default on: 5 failures open for 30 s); `false` turns them off. */
  circuitBreaker?: Omit<CircuitBreakerOptions, 'clock' | 'onStateChange'> | false;
  /** Run the after-model plugins and agent callbacks on a response obtained here (default true). */
  runAfterModelHooks?: boolean;
  clock?: Clock;
  onFallback?: (info: { from: string; to: string; error: string }) => void;
  onCircuitStateChange?: (info: { model: string; from: CircuitState; to: CircuitState }) => void;
}

/** The error code of the response given when every model failed or was unavailable. */
export const MODEL_FALLBACK_EXHAUSTED = 'MODEL_FALLBACK_EXHAUSTED';

function defaultIsRetryable(error: unknown): boolean {
  if (isApiCallError(error)) return error.isRetryable;
  // The model answered with an unusable response (core attaches it to the error): same again.
  if (typeof error === 'object' && error !== null && 'response' in error) return false;
  if (isAdkError(error)) return isAdkError(error, 'RATE_LIMIT');
  return true;
}

function defaultShouldFallback(error: unknown): boolean {
  return !isAdkError(error, 'CANCELLED') && !isAdkError(error, 'PLUGIN');
}

interface AgentLike {
  canonicalModel?: string | Llm;
  callbacks?: { afterModel?: NonNullable<Plugin['afterModel']>[] };
}

/**
 * On a model error, retries the model with backoff, then moves to the next model of a list. Each
 * model has a circuit breaker (closed / open / half-open): while the agent's own model is open,
 * requests go straight to the fallbacks; once its timeout passes, one trial request goes to it
 * again. Fallback calls are made without streaming.
 */
export class ModelFallbackPlugin implements Plugin {
  readonly name: string;
  private readonly options: ModelFallbackPluginOptions;
  private readonly clock: Clock;
  private readonly breakers = new Map<string, CircuitBreaker>();

  constructor(options: ModelFallbackPluginOptions) {
    this.name = options.name ?? 'model_fallback';
    this.options = options;
    this.clock = options.clock ?? systemClock;
  }

  /** The circuit state of a model (closed for a model never called). */
  circuitState(model: string): CircuitState {
    return this.breakers.get(model)?.state ?? 'closed';
  }

  private breaker(model: string): CircuitBreaker | undefined {
    const config = this.options.circuitBreaker;
    if (config === false) return undefined;
    let breaker = this.breakers.get(model);
    if (!breaker) {
      const notify = this.options.onCircuitStateChange;
      breaker = new CircuitBreaker({
        ...config,
        clock: this.clock,
        ...(notify ? { onStateChange: (from, to) => notify({ model, from, to }) } : {}),
      });
      this.breakers.set(model, breaker);
    }
    return breaker;
  }

  private delay(attempt: number): number {
    const b = this.options.backoff ?? {};
    const r = this.options.retry ?? {};
    const initial =
      r.initialDelayMs ?? (r.initialDelay !== undefined ? r.initialDelay * 1000 : (b.initialMs ?? 500));
    const max = r.maxDelayMs ?? (r.maxDelay !== undefined ? r.maxDelay * 1000 : (b.maxMs ?? 10_000));
    const base = Math.min(max, initial * (r.backoffFactor ?? b.multiplier ?? 2) ** attempt);
    const jitter = r.jitter !== undefined ? r.jitter > 0 : (b.jitter ?? true);
    return jitter ? base / 2 + (r.random ?? Math.random)() * (base / 2) : base;
  }

  /** Extra attempts per model: `retry.maxAttempts - 1`, else the deprecated `maxRetries` (default 2). */
  private retries(): number {
    const attempts = this.options.retry?.maxAttempts;
    return attempts !== undefined ? Math.max(0, attempts - 1) : (this.options.maxRetries ?? 2);
  }

  /** Primary model circuit open: skip it and go straight to the fallbacks. */
  async beforeModel({ context, request }: BeforeModelArgs): Promise<LlmResponse | undefined> {
    const breaker = this.breaker(request.model);
    if (!breaker || breaker.tryAcquire()) return undefined;
    const attempts: FallbackAttempt[] = [{ model: request.model, skipped: 'circuit_open' }];
    return this.tryFallbacks(context, request, attempts, 'circuit open');
  }

  afterModel({ request, response }: AfterModelArgs): undefined {
    // Responses obtained here were recorded already (and answer for another model).
    if (response.customMetadata?.model_fallback) return undefined;
    this.breakers.get(request.model)?.recordSuccess();
    return undefined;
  }

  async onModelError({ context, request, error }: ModelErrorArgs): Promise<LlmResponse | undefined> {
    const primaryName = request.model;
    this.breaker(primaryName)?.recordFailure();
    if (!(this.options.shouldFallback ?? defaultShouldFallback)(error)) return undefined;
    const attempts: FallbackAttempt[] = [
      { model: primaryName, error: `${errorCodeOf(error)}: ${describeError(error)}` },
    ];
    const isRetryable = this.options.isRetryable ?? defaultIsRetryable;
    const retries = this.retries();
    if (isRetryable(error) && retries > 0) {
      const primary = this.resolvePrimary(context);
      if (primary) {
        const response = await this.attempt(context, primary, request, attempts, 0, retries, error);
        if (response) return response;
      }
    }
    return this.tryFallbacks(context, request, attempts, describeError(error));
  }

  private async tryFallbacks(
    context: CallbackContext,
    request: LlmRequest,
    attempts: FallbackAttempt[],
    reason: string,
  ): Promise<LlmResponse> {
    const retries = this.retries();
    let from = request.model;
    let why = reason;
    for (const entry of this.options.fallbacks) {
      const llm = this.resolve(context, entry);
      this.options.onFallback?.({ from, to: llm.model, error: why });
      const response = await this.attempt(context, llm, request, attempts, -1, retries + 1);
      if (response) return response;
      from = llm.model;
      why = attempts.at(-1)?.error ?? 'circuit open';
    }
    const summary = attempts
      .map((a) => `${a.model}: ${a.skipped === 'circuit_open' ? 'circuit open' : a.error}`)
      .join('; ');
    return {
      errorCode: MODEL_FALLBACK_EXHAUSTED,
      errorMessage: `Every model failed or is unavailable (${summary})`,
      customMetadata: { model_fallback: { attempts } },
    };
  }

  /**
   * Calls `llm` up to `calls` times while errors are retryable, sleeping before every call after
   * the `firstDelayIndex`-th (a negative index: the first call is made at once).
   */
  private async attempt(
    context: CallbackContext,
    llm: Llm,
    original: LlmRequest,
    attempts: FallbackAttempt[],
    firstDelayIndex: number,
    calls: number,
    previousError?: unknown,
  ): Promise<LlmResponse | undefined> {
    const breaker = this.breaker(llm.model);
    const request: LlmRequest = { ...original, model: llm.model };
    const signal = context.invocationContext.signal;
    const isRetryable = this.options.isRetryable ?? defaultIsRetryable;
    let lastError = previousError;
    for (let i = 0; i < calls; i++) {
      const delayIndex = firstDelayIndex + i;
      if (delayIndex >= 0) {
        // A server that said how long to wait (Retry-After) is waited for at least that long.
        const asked = isApiCallError(lastError) ? (lastError.retryAfterMs ?? 0) : 0;
        await this.clock.sleep(Math.max(this.delay(delayIndex), asked), signal);
      }
      if (breaker && !breaker.tryAcquire()) {
        attempts.push({ model: llm.model, skipped: 'circuit_open' });
        return undefined;
      }
      try {
        const response = await generateOnce(llm, request, signal);
        breaker?.recordSuccess();
        return this.finish(context, original, request, response, attempts.length + 1);
      } catch (error) {
        if (signal.aborted || isAdkError(error, 'CANCELLED')) {
          throw error instanceof CancelledError ? error : new CancelledError(undefined, { cause: error });
        }
        if (isAdkError(error, 'PLUGIN')) throw error;
        breaker?.recordFailure();
        lastError = error;
        attempts.push({ model: llm.model, error: `${errorCodeOf(error)}: ${describeError(error)}` });
        if (!isRetryable(error)) return undefined;
      }
    }
    return undefined;
  }

  private async finish(
    context: CallbackContext,
    original: LlmRequest,
    request: LlmRequest,
    response: LlmResponse,
    attemptNumber: number,
  ): Promise<LlmResponse> {
    const marked: LlmResponse = {
      ...response,
      modelVersion: response.modelVersion ?? request.model,
      customMetadata: {
        ...response.customMetadata,
        model_fallback: { model: request.model, attempt: attemptNumber },
      },
    };
    if (this.options.runAfterModelHooks === false) return marked;
    // Core runs after-model hooks only on responses of its own call; give them this one too, with
    // the request the agent made (so a cache stores it under that request); `modelVersion` names
    // the model that answered.
    const args = { context, request: original, response: marked };
    const ctx = context.invocationContext;
    const agent = ctx.agent as AgentLike;
    const replaced =
      (await ctx.pluginManager.afterModel(args)) ??
      (await firstResult(agent.callbacks?.afterModel ?? [], args));
    return replaced ?? marked;
  }

  private resolvePrimary(context: CallbackContext): Llm | undefined {
    const model = (context.invocationContext.agent as AgentLike).canonicalModel;
    return model === undefined ? undefined : this.resolve(context, model);
  }

  private resolve(context: CallbackContext, entry: string | Llm): Llm {
    if (typeof entry !== 'string') return entry;
    try {
      return context.invocationContext.models.resolve(entry);
    } catch (error) {
      throw new ConfigError(`ModelFallbackPlugin: cannot resolve fallback model "${entry}"`, {
        cause: error,
      });
    }
  }
}

/** One non-streaming call; the complete response, or a throw for a transport or error response. */
async function generateOnce(llm: Llm, request: LlmRequest, signal: AbortSignal): Promise<LlmResponse> {
  let final: LlmResponse | undefined;
  for await (const response of llm.generate(request, { stream: false, signal })) {
    if (!response.partial) final = response;
  }
  if (!final) throw new Error(`Model "${llm.model}" returned no response`);
  if (final.errorCode !== undefined && !final.content?.parts.length) {
    throw Object.assign(new Error(final.errorMessage ?? final.errorCode), { response: final });
  }
  return final;
}
