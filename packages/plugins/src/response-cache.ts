import { createHash } from 'node:crypto';
import {
  type AfterModelArgs,
  type BeforeModelArgs,
  type CallbackContext,
  type Content,
  describeError,
  type LlmRequest,
  type LlmResponse,
  type MaybePromise,
  newFunctionCallId,
  type Plugin,
} from '@adk/core';
import { evictOldest } from '@adk/core/internal';
import { canonicalJson } from './canonical-json.js';
import { type Clock, systemClock } from './clock.js';

export interface CacheEntry {
  response: LlmResponse;
  /** Milliseconds since the epoch after which the entry is stale. */
  expiresAt: number;
}

/** Where cached responses live: the in-memory LRU below, or Redis, a database, a file… */
export interface CacheStore {
  get(key: string): MaybePromise<CacheEntry | undefined>;
  set(key: string, entry: CacheEntry): MaybePromise<void>;
  delete(key: string): MaybePromise<void>;
}

/** An in-memory least-recently-used store. */
export class InMemoryCacheStore implements CacheStore {
  private readonly entries = new Map<string, CacheEntry>();
  readonly maxEntries: number;

  constructor(options: { maxEntries?: number } = {}) {
    this.maxEntries = Math.max(1, options.maxEntries ?? 1000);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): CacheEntry | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      // Most recently used goes last.
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: CacheEntry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    evictOldest(this.entries, this.maxEntries);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

export interface ResponseCachePluginOptions {
  /** How long a response stays usable (default 5 minutes). */
  ttlMs?: number;
  store?: CacheStore;
  /** Share hits across the users of the app (default) or only within one user's requests. */
  scope?: 'app' | 'user';
  /** Which responses to store (default: every complete response without an error). */
  shouldCache?: (request: LlmRequest, response: LlmResponse) => boolean;
  /** A failing store never fails a run: the request is treated as a miss and the error reported here (default `console.warn`). */
  onStoreError?: (error: unknown) => void;
  /** Default `'response_cache'`. */
  name?: string;
  clock?: Clock;
}

/**
 * Function-call ids are unique per call, so two otherwise identical conversations differ in them;
 * they are replaced by their order of appearance before hashing.
 */
function normalizeIds(contents: Content[]): Content[] {
  const ids = new Map<string, string>();
  const alias = (id: string) => {
    let a = ids.get(id);
    if (a === undefined) {
      a = `#${ids.size}`;
      ids.set(id, a);
    }
    return a;
  };
  return contents.map((c) => ({
    ...c,
    parts: c.parts.map((p) => {
      if (p.functionCall) return { ...p, functionCall: { ...p.functionCall, id: alias(p.functionCall.id) } };
      if (p.functionResponse) {
        return { ...p, functionResponse: { ...p.functionResponse, id: alias(p.functionResponse.id) } };
      }
      return p;
    }),
  }));
}

/** The cache key of a request: sha256 of the canonical JSON of what determines the answer. */
export function requestCacheKey(request: LlmRequest, scope = ''): string {
  const payload = canonicalJson({
    scope,
    model: request.model,
    systemInstruction: request.systemInstruction,
    contents: normalizeIds(request.contents),
    tools: request.tools,
    config: request.config,
  });
  return createHash('sha256').update(payload).digest('hex');
}

/** A cached response as it is replayed: fresh call ids, no token usage (none was spent). */
function replay(response: LlmResponse, key: string): LlmResponse {
  const { usageMetadata: _usage, ...rest } = response;
  const content = response.content && {
    ...response.content,
    parts: response.content.parts.map((p) =>
      p.functionCall ? { ...p, functionCall: { ...p.functionCall, id: newFunctionCallId() } } : p,
    ),
  };
  return {
    ...rest,
    ...(content ? { content } : {}),
    customMetadata: { ...response.customMetadata, response_cache: { hit: true, key } },
  };
}

/**
 * Answers a model request from a cache when the same request (model, system instruction, contents,
 * tools, config) was answered within the TTL; the model is not called. Responses are stored after
 * each model call. Register it before plugins that call models themselves (model fallback) so a hit
 * skips them too.
 */
export class ResponseCachePlugin implements Plugin {
  readonly name: string;
  readonly store: CacheStore;
  private readonly options: ResponseCachePluginOptions;
  private readonly clock: Clock;
  /** The key computed in beforeModel, so later changes to the request do not change where it is stored. */
  private readonly keys = new WeakMap<LlmRequest, string>();
  private hitCount = 0;
  private missCount = 0;

  constructor(options: ResponseCachePluginOptions = {}) {
    this.name = options.name ?? 'response_cache';
    this.store = options.store ?? new InMemoryCacheStore();
    this.options = options;
    this.clock = options.clock ?? systemClock;
  }

  get stats(): { hits: number; misses: number } {
    return { hits: this.hitCount, misses: this.missCount };
  }

  private keyFor(request: LlmRequest, context: CallbackContext): string {
    const scope =
      this.options.scope === 'user'
        ? `${context.invocationContext.appName}\u0000${context.userId}`
        : context.invocationContext.appName;
    return requestCacheKey(request, scope);
  }

  async beforeModel({ context, request }: BeforeModelArgs): Promise<LlmResponse | undefined> {
    const key = this.keyFor(request, context);
    this.keys.set(request, key);
    try {
      const entry = await this.store.get(key);
      if (entry && entry.expiresAt > this.clock.now()) {
        this.hitCount++;
        return replay(entry.response, key);
      }
      if (entry) await this.store.delete(key);
    } catch (error) {
      this.storeError(error);
    }
    this.missCount++;
    return undefined;
  }

  private storeError(error: unknown): void {
    (this.options.onStoreError ?? ((e) => console.warn(`ResponseCachePlugin: ${describeError(e)}`)))(error);
  }

  async afterModel({ context, request, response }: AfterModelArgs): Promise<undefined> {
    if (response.partial || response.errorCode !== undefined || !response.content) return undefined;
    if (this.options.shouldCache && !this.options.shouldCache(request, response)) return undefined;
    const key = this.keys.get(request) ?? this.keyFor(request, context);
    try {
      await this.store.set(key, {
        response: structuredClone(response),
        expiresAt: this.clock.now() + (this.options.ttlMs ?? 5 * 60_000),
      });
    } catch (error) {
      this.storeError(error);
    }
    return undefined;
  }
}
