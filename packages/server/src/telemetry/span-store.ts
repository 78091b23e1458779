import {
  EVENT_ID_ATTRIBUTE,
  type PriceTable,
  priceTable,
  type StoredSpan,
  spanSessionId,
  type TraceListResult,
  type TraceQuery,
  TraceSummarizer,
  type TraceSummary,
  traceMatches,
} from '@adk/core';
import { evictOldest } from '@adk/core/internal';
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { emitsLegacyGenAiNames } from './gen-ai-metrics.js';
import { genAiProviderName } from './gen-ai-provider.js';
import { hasFinalAttributes } from './light-tracer.js';
import {
  DESCRIPTIVE_ATTRIBUTES,
  redactAttributes,
  type TextRedactor,
  type TraceContentCapture,
} from './redaction.js';
import {
  ADK_MODEL_SPAN_NAME,
  isModelCallSpan,
  latestModelSpanName,
  type ModelSpanNaming,
  modelSpanNaming,
} from './span-names.js';

/** One finished span as the trace routes serve it (ADK's `debug/trace` shape, plus its status). */
export type SpanRecord = StoredSpan;

/**
 * Told of each span when it ends (`annotation` false), and again, with the same record object, when
 * a payload or event link is added to it (`annotation` true).
 */
export type SpanListener = (record: SpanRecord, annotation: boolean) => void;

export interface InMemorySpanStoreOptions {
  /** Traces kept (oldest dropped first). Default 2000. */
  maxTraces?: number;
  /** Event → span links kept. Default 20000. */
  maxEvents?: number;
  /**
   * Model calls whose request/response payloads are kept (each up to 64 KB of JSON twice); older
   * calls keep their other attributes. Default 200.
   */
  maxPayloads?: number;
}

/** What the process keeps when spans live only here (the `InMemorySpanStore` defaults). */
export const IN_MEMORY_SPAN_LIMITS = { maxTraces: 2000, maxEvents: 20000 } as const;

/**
 * What the process keeps when a persistent trace store holds the spans: enough for the spans not
 * written yet (a second or two of traffic) and the event links of the turns running now.
 */
export const PERSISTED_SPAN_LIMITS = { maxTraces: 500, maxEvents: 5000 } as const;

/**
 * An OpenTelemetry time as epoch nanoseconds at microsecond precision, the precision a persistent
 * trace store keeps: a span reads the same from this process before its write and from the store
 * after it (a double holds an epoch in nanoseconds only to about 256 ns anyway).
 */
function nanos([seconds, nanoseconds]: [number, number]): number {
  return (seconds * 1e6 + Math.round(nanoseconds / 1000)) * 1000;
}

/**
 * Keeps the spans of recent traces in memory for the `/debug/trace` routes. It is an OpenTelemetry
 * SpanProcessor: the server registers it with its tracer provider; add it to your own provider when
 * you set up OpenTelemetry yourself. Bounded: the oldest traces go first.
 */
export class InMemorySpanStore implements SpanProcessor {
  /**
   * The kept traces' spans, oldest trace first. The only index a span's end updates: a session's
   * spans are found by a scan (`sessionSpans`, a debug route), not kept in maps of their own.
   */
  private readonly traces = new Map<string, SpanRecord[]>();
  /** Latest finished model / tool span per session, waiting for the event it produced. */
  private readonly latest = new Map<string, { llm?: SpanRecord; tool?: SpanRecord }>();
  private readonly events = new Map<string, SpanRecord>();
  /** Records carrying payload attributes, oldest first (bounded by maxPayloads). */
  private readonly payloads: { record: SpanRecord; keys: string[] }[] = [];
  private maxTraces: number;
  private maxEvents: number;
  private readonly maxPayloads: number;
  private readonly listeners = new Set<SpanListener>();
  /** `OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai/dup`: model calls carry `gen_ai.system` too. */
  private readonly legacyNames = emitsLegacyGenAiNames();
  /** `OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental`: model calls are named `chat {model}`. */
  private readonly spanNaming: ModelSpanNaming = modelSpanNaming();
  private redact: TextRedactor | undefined;
  private content: TraceContentCapture = 'full';
  private prices: PriceTable = priceTable();

  constructor(options: InMemorySpanStoreOptions = {}) {
    this.maxTraces = options.maxTraces ?? IN_MEMORY_SPAN_LIMITS.maxTraces;
    this.maxEvents = options.maxEvents ?? IN_MEMORY_SPAN_LIMITS.maxEvents;
    this.maxPayloads = options.maxPayloads ?? 200;
  }

  onStart(_span: Span, _parentContext: Context): void {}

  /**
   * Adds `gen_ai.provider.name` to model calls that lack it (core names the model, not its vendor).
   * Runs before the span ends, so every exporter of the provider sees it.
   */
  onEnding(span: Span): void {
    this.scrub(span);
    this.price(span);
    if (this.spanNaming === 'latest' && span.name === ADK_MODEL_SPAN_NAME) {
      const a = span.attributes;
      span.updateName(
        latestModelSpanName(String(a['gen_ai.operation.name'] ?? 'chat'), a['gen_ai.request.model']),
      );
    }
    const model = span.attributes['gen_ai.request.model'];
    if (typeof model !== 'string' || span.attributes['gen_ai.provider.name'] !== undefined) return;
    const provider = genAiProviderName(model);
    if (!provider) return;
    span.setAttribute('gen_ai.provider.name', provider);
    if (this.legacyNames) span.setAttribute('gen_ai.system', provider);
  }

  /**
   * How spans are cleaned before any exporter or store sees them: `redact` masks secrets and
   * personal data in every string attribute, the status message and event attributes (exception
   * messages); content `off` also drops descriptions and error messages. Process-wide, like the
   * tracer provider: the last server configured sets it.
   */
  configure(options: {
    redact?: TextRedactor | undefined;
    content?: TraceContentCapture;
    prices?: PriceTable;
    /**
     * New bounds for the traces and event links kept (the oldest go at the next span). A server
     * that persists its spans keeps fewer here: the trace routes read the rest from its store.
     */
    limits?: Pick<InMemorySpanStoreOptions, 'maxTraces' | 'maxEvents'>;
  }): void {
    this.redact = options.redact;
    this.content = options.content ?? 'full';
    if (options.prices) this.prices = options.prices;
    if (options.limits?.maxTraces !== undefined) this.maxTraces = options.limits.maxTraces;
    if (options.limits?.maxEvents !== undefined) this.maxEvents = options.limits.maxEvents;
  }

  /** `adk.usage.cost_usd` on a model call with token counts and a priced model. */
  private price(span: Span): void {
    const a = span.attributes;
    if (a['gen_ai.operation.name'] !== 'chat') return;
    const model = a['gen_ai.response.model'] ?? a['gen_ai.request.model'];
    if (typeof model !== 'string') return;
    const num = (key: string) => (typeof a[key] === 'number' ? (a[key] as number) : undefined);
    const input = num('gen_ai.usage.input_tokens');
    const output = num('gen_ai.usage.output_tokens');
    if (input === undefined && output === undefined) return;
    const cost =
      this.prices.cost(model, {
        ...(input !== undefined ? { input } : {}),
        ...(output !== undefined ? { output } : {}),
        ...(num('adk.usage.cached_input_tokens') !== undefined
          ? { cachedInput: num('adk.usage.cached_input_tokens') as number }
          : {}),
        ...(num('adk.usage.reasoning_tokens') !== undefined
          ? { reasoning: num('adk.usage.reasoning_tokens') as number }
          : {}),
      }) ??
      (typeof a['gen_ai.request.model'] === 'string' && model !== a['gen_ai.request.model']
        ? this.prices.cost(a['gen_ai.request.model'] as string, {
            ...(input !== undefined ? { input } : {}),
            ...(output !== undefined ? { output } : {}),
          })
        : undefined);
    if (cost !== undefined) span.setAttribute('adk.usage.cost_usd', Number(cost.toFixed(8)));
  }

  private scrub(span: Span): void {
    const redact = this.redact;
    const off = this.content === 'off';
    if (!redact && !off) return;
    // The SDK span's attribute map, status and events are plain objects until the span has ended.
    const attributes = span.attributes as Record<string, unknown>;
    if (off) for (const key of DESCRIPTIVE_ATTRIBUTES) delete attributes[key];
    if (redact) {
      const changed = redactAttributes(attributes, redact);
      for (const key in changed) span.setAttribute(key, changed[key] as string | string[]);
    }
    const status = span.status;
    if (status.message) {
      const message = off ? undefined : redact?.(status.message);
      if (message !== status.message)
        span.setStatus(message ? { code: status.code, message } : { code: status.code });
    }
    for (const event of span.events) {
      const eventAttributes = event.attributes as Record<string, unknown> | undefined;
      if (!eventAttributes) continue;
      if (off) {
        delete eventAttributes['exception.message'];
        delete eventAttributes['exception.stacktrace'];
      }
      if (redact) Object.assign(eventAttributes, redactAttributes(eventAttributes, redact));
    }
  }

  onEnd(span: ReadableSpan): void {
    const context = span.spanContext();
    const { code, message } = span.status;
    const record: SpanRecord = {
      name: span.name,
      span_id: context.spanId,
      trace_id: context.traceId,
      parent_span_id: span.parentSpanContext?.spanId ?? null,
      start_time: nanos(span.startTime),
      end_time: nanos(span.endTime),
      // The light tracer's ended spans change no more: their map is kept, not copied (the record's
      // later annotations then land in it, which nothing else reads after the end).
      attributes: hasFinalAttributes(span) ? span.attributes : { ...span.attributes },
      // SpanStatusCode: 0 unset, 1 ok, 2 error.
      status: code === 2 ? 'error' : code === 1 ? 'ok' : 'unset',
    };
    if (code === 2 && message) record.status_message = message;
    let spans = this.traces.get(record.trace_id);
    if (!spans) {
      spans = [];
      this.traces.set(record.trace_id, spans);
      evictOldest(this.traces, this.maxTraces);
    }
    spans.push(record);
    // The session's latest model and tool spans wait for the events they produced.
    const kind = isModelCallSpan(span) ? 'llm' : span.name.startsWith('execute_tool') ? 'tool' : undefined;
    if (kind) {
      const sessionId = spanSessionId(record);
      if (sessionId) this.slot(sessionId)[kind] = record;
    }
    this.notify(record, false);
  }

  /** Calls `listener` with every span that ends (and again when one is annotated); returns the unsubscribe. */
  subscribe(listener: SpanListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(record: SpanRecord, annotation = true): void {
    for (const listener of this.listeners) {
      try {
        listener(record, annotation);
      } catch {
        // A listener never breaks span recording.
      }
    }
  }

  /** The kept traces whose root span ended, newest first, filtered like a persisted store's listing. */
  listTraces(query: TraceQuery = {}): TraceListResult {
    const limit = Math.min(Math.max(1, Math.floor(query.limit ?? 50)), 1000);
    const summaries: TraceSummary[] = [];
    for (const spans of this.traces.values()) {
      const summarizer = new TraceSummarizer();
      const root = spans.find((s) => s.name === 'invocation') ?? spans.find((s) => s.parent_span_id === null);
      if (!root) continue;
      // Spans under the run first; a root above it (an HTTP span) would close the summary early.
      for (const span of spans) if (span !== root && span.parent_span_id !== null) summarizer.add(span);
      const summary = summarizer.add(root);
      if (!summary || !traceMatches(summary, query)) continue;
      if (
        query.attribute &&
        !spans.some((s) => {
          const value = s.attributes[query.attribute?.key ?? ''];
          return value !== undefined && String(value) === query.attribute?.value;
        })
      )
        continue;
      summaries.push(summary);
    }
    summaries.sort((a, b) => b.start_time - a.start_time || (a.trace_id < b.trace_id ? 1 : -1));
    const offset = query.cursor ? Number(query.cursor) : 0;
    const start = Number.isSafeInteger(offset) && offset > 0 ? offset : 0;
    const page = summaries.slice(start, start + limit);
    return {
      traces: page,
      ...(start + limit < summaries.length ? { nextCursor: String(start + limit) } : {}),
    };
  }

  /** Every kept span of one trace, oldest first. */
  traceSpans(traceId: string): SpanRecord[] {
    return [...(this.traces.get(traceId) ?? [])].sort((a, b) => a.start_time - b.start_time);
  }

  private slot(sessionId: string): { llm?: SpanRecord; tool?: SpanRecord } {
    let slot = this.latest.get(sessionId);
    if (!slot) {
      slot = {};
      this.latest.set(sessionId, slot);
      // A slot outlives its session's traces (their spans may be written and forgotten before the
      // event is linked); this bound lets the oldest go.
      evictOldest(this.latest, this.maxTraces);
    }
    return slot;
  }

  /**
   * Forgets ended traces that a persistent trace store now holds: the trace routes read them from
   * there, so the process keeps only the spans not written yet. Spans kept for less time are
   * collected young instead of filling the old generation that major collections walk. Each
   * session's latest model and tool spans stay until newer ones replace them, so an event linked
   * after its trace was written still reaches its span (the annotation is written again).
   */
  forgetWritten(traceIds: Iterable<string>): void {
    for (const traceId of traceIds) {
      const spans = this.traces.get(traceId);
      if (!spans) continue;
      this.traces.delete(traceId);
      for (const record of spans) {
        const eventId = record.attributes[EVENT_ID_ATTRIBUTE];
        if (typeof eventId === 'string' && this.events.get(eventId) === record) this.events.delete(eventId);
      }
    }
  }

  /**
   * Adds attributes (the model request and response) to the session's latest finished model-call
   * span. Called from an `afterModel` hook: the call's span has just ended, so it is the latest.
   * A value given as a function is computed on first read (a trace view, the persistent writer's
   * next batch), never on the run's path; it is read once and then kept. A function that declares a
   * parameter is given the store's redactor and applies it to every text it puts in the value (it
   * knows the value's structure, so repeated parts are masked once and remembered); the output of
   * one that declares none is redacted as a whole.
   */
  annotateLatestModelCall(
    sessionId: string,
    attributes: Record<string, string | ((redact: TextRedactor | undefined) => string)>,
  ): void {
    const record = this.latest.get(sessionId)?.llm;
    if (!record) return;
    const redact = this.redact;
    const target = record.attributes;
    // A whole attribute value through the redactor, as every span attribute is.
    const masked = (key: string, text: string): string =>
      redact ? ((redactAttributes({ [key]: text }, redact)[key] as string | undefined) ?? text) : text;
    for (const [key, value] of Object.entries(attributes)) {
      if (typeof value === 'string') {
        target[key] = masked(key, value);
        continue;
      }
      Object.defineProperty(target, key, {
        configurable: true,
        enumerable: true,
        get() {
          let text: string;
          try {
            text = value.length > 0 ? value(redact) : masked(key, value(undefined));
          } catch (error) {
            text = masked(key, JSON.stringify({ unrecorded: (error as Error).message }));
          }
          Object.defineProperty(target, key, {
            configurable: true,
            enumerable: true,
            writable: true,
            value: text,
          });
          return text;
        },
      });
    }
    this.notify(record);
    this.payloads.push({ record, keys: Object.keys(attributes) });
    while (this.payloads.length > this.maxPayloads) {
      const dropped = this.payloads.shift();
      for (const key of dropped?.keys ?? []) delete dropped?.record.attributes[key];
    }
  }

  /**
   * Links an event the runner just yielded to the span that produced it: the session's latest
   * finished tool span for a function-response event, else its latest model-call span. Spans end
   * before the runner yields their event, so the latest one is the right one.
   */
  linkEvent(sessionId: string, eventId: string, kind: 'llm' | 'tool'): void {
    const slot = this.latest.get(sessionId);
    const record = kind === 'tool' ? slot?.tool : slot?.llm;
    if (!record) return;
    // The event the span produced, as ADK records it (the first one, for a span with several).
    if (record.attributes[EVENT_ID_ATTRIBUTE] === undefined) {
      record.attributes[EVENT_ID_ATTRIBUTE] = eventId;
      this.notify(record);
    }
    this.events.set(eventId, record);
    evictOldest(this.events, this.maxEvents);
  }

  /** ADK's `/debug/trace/{eventId}`: the span's attributes plus its trace and span ids. */
  eventTrace(eventId: string): Record<string, unknown> | undefined {
    const record = this.events.get(eventId);
    if (!record) return undefined;
    return { ...record.attributes, trace_id: record.trace_id, span_id: record.span_id };
  }

  /** Every kept span of the traces that touched the session, oldest first. */
  sessionSpans(sessionId: string): SpanRecord[] {
    const out: SpanRecord[] = [];
    for (const spans of this.traces.values())
      if (spans.some((span) => spanSessionId(span) === sessionId)) out.push(...spans);
    return out.sort((a, b) => a.start_time - b.start_time);
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
