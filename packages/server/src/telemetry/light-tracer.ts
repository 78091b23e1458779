// A tracer provider for the common case: spans recorded for the process's own store and GenAI
// metrics only, with no exporter. It implements the OpenTelemetry API's TracerProvider, Tracer and
// Span, and hands its spans to standard span processors (`onStart`, `onEnding`, `onEnd`) as
// `@opentelemetry/sdk-trace-base` would, without the SDK's sampler, span limits, self-metrics and
// resource, which nothing reads here. Every span is sampled. When spans are exported (OTLP), the
// server uses the SDK instead.

import { randomFillSync } from 'node:crypto';
import type {
  Attributes,
  AttributeValue,
  Context,
  Exception,
  HrTime,
  Link,
  Span,
  SpanAttributes,
  SpanContext,
  SpanKind,
  SpanOptions,
  SpanStatus,
  TimeInput,
  Tracer,
  TracerProvider,
} from '@opentelemetry/api';
import type { ReadableSpan, Span as SdkSpan, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-base';

type OtelApi = typeof import('@opentelemetry/api');

/**
 * Random bytes drawn from the OS a block at a time, turned into hex once per block, and handed out
 * as ids: an id is a slice of the block's text, not a conversion of its own.
 */
const RANDOM_BLOCK = 4096;
let randomBlock = Buffer.alloc(0);
let randomText = '';
let randomOffset = 0;

/** `bytes` random bytes as lowercase hex, never all zeros (an invalid id). */
function randomHex(bytes: number): string {
  for (;;) {
    if (randomOffset + bytes > randomBlock.length) {
      randomBlock = randomFillSync(Buffer.allocUnsafe(RANDOM_BLOCK));
      randomText = randomBlock.toString('hex');
      randomOffset = 0;
    }
    const start = randomOffset;
    randomOffset += bytes;
    for (let i = start; i < randomOffset; i++)
      if (randomBlock[i] !== 0) return randomText.slice(start * 2, randomOffset * 2);
  }
}

function isPrimitive(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** OpenTelemetry's rule: a primitive, or an array of one primitive type (nulls allowed). */
function isAttributeValue(value: unknown): value is AttributeValue {
  if (value == null) return false;
  if (!Array.isArray(value)) return isPrimitive(value);
  let kind: string | undefined;
  for (const item of value) {
    if (item == null) continue;
    if (!isPrimitive(item)) return false;
    if (kind === undefined) kind = typeof item;
    else if (typeof item !== kind) return false;
  }
  return true;
}

/** Whether a span takes `value` under `key` (a named key, an attribute value). */
function acceptsAttribute(key: string, value: unknown): value is AttributeValue {
  return key !== '' && isAttributeValue(value);
}

/** Whether a span takes every entry of `attributes` (listed in `keys`) as it is. */
function acceptsAll(attributes: SpanAttributes, keys: readonly string[]): boolean {
  for (const key of keys) if (!acceptsAttribute(key, attributes[key])) return false;
  return true;
}

function millisToHr(ms: number): HrTime {
  const seconds = Math.trunc(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

/** When this process's performance clock started, epoch ms (a getter each time it is read). */
const TIME_ORIGIN = performance.timeOrigin;

/** The wall clock in milliseconds with sub-millisecond precision, like the SDK's. */
function nowMs(): number {
  return TIME_ORIGIN + performance.now();
}

function toHr(input: TimeInput | undefined): HrTime {
  if (input === undefined) return millisToHr(nowMs());
  if (Array.isArray(input)) return input as HrTime;
  if (input instanceof Date) return millisToHr(input.getTime());
  // A number below performance.now() is a performance timestamp, else epoch milliseconds.
  return millisToHr(input <= performance.now() ? TIME_ORIGIN + input : input);
}

/**
 * A span context this tracer made: its ids are valid by construction, so a child span skips the
 * API's id checks (two regular expressions) for it.
 */
class LightSpanContext implements SpanContext {
  readonly traceFlags = 1; // TraceFlags.SAMPLED: every span is sampled.
  readonly traceState?: SpanContext['traceState'];

  constructor(
    readonly traceId: string,
    readonly spanId: string,
    traceState: SpanContext['traceState'] | undefined,
  ) {
    if (traceState) this.traceState = traceState;
  }
}

function hrDuration(start: HrTime, end: HrTime): HrTime {
  let seconds = end[0] - start[0];
  let nanos = end[1] - start[1];
  if (nanos < 0) {
    seconds -= 1;
    nanos += 1e9;
  }
  return [seconds, nanos];
}

const SCHEMA_LESS_RESOURCE = { attributes: {} } as unknown as ReadableSpan['resource'];

/** What a span without links or events reads: one shared empty list (a span's first entry replaces it). */
const NONE: never[] = Object.freeze([]) as unknown as never[];
const UNSET: SpanStatus = Object.freeze({ code: 0 });
const ZERO: HrTime = Object.freeze([0, 0]) as unknown as HrTime;

class LightSpan implements SdkSpan {
  attributes: Attributes = {};
  links: Link[] = NONE;
  events: TimedEvent[] = NONE;
  status: SpanStatus = UNSET;
  endTime: HrTime = ZERO;
  readonly startTime: HrTime;
  readonly resource = SCHEMA_LESS_RESOURCE;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  private done = false;
  /** No attribute set yet: the first `setAttributes` may take a copy of its whole map. */
  private bare = true;
  private took: HrTime = ZERO;

  constructor(
    public name: string,
    readonly kind: SpanKind,
    private readonly context: SpanContext,
    readonly parentSpanContext: SpanContext | undefined,
    readonly instrumentationScope: ReadableSpan['instrumentationScope'],
    private readonly processors: readonly SpanProcessor[],
    options: SpanOptions,
  ) {
    this.startTime = toHr(options.startTime);
    if (options.attributes) this.setAttributes(options.attributes);
    for (const link of options.links ?? []) this.addLink(link);
  }

  get duration(): HrTime {
    return this.took;
  }

  get ended(): boolean {
    return this.done;
  }

  spanContext(): SpanContext {
    return this.context;
  }

  setAttribute(key: string, value: unknown): this {
    if (this.done || !acceptsAttribute(key, value)) return this;
    this.attributes[key] = value;
    this.bare = false;
    return this;
  }

  setAttributes(attributes: SpanAttributes): this {
    if (this.done) return this;
    const keys = Object.keys(attributes);
    // A span's first attributes, all valid (the runtime's are): one copy of the whole map.
    if (this.bare && keys.length > 0 && acceptsAll(attributes, keys)) {
      this.attributes = { ...attributes } as Attributes;
      this.bare = false;
      return this;
    }
    for (const key of keys) this.setAttribute(key, attributes[key]);
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.done) return this;
    const isTime =
      typeof attributesOrTime === 'number' ||
      attributesOrTime instanceof Date ||
      Array.isArray(attributesOrTime);
    const attributes: Attributes = {};
    if (!isTime && attributesOrTime)
      for (const [key, value] of Object.entries(attributesOrTime))
        if (isAttributeValue(value)) attributes[key] = value;
    if (this.events === NONE) this.events = [];
    this.events.push({
      name,
      attributes,
      time: toHr(isTime ? (attributesOrTime as TimeInput) : time),
      droppedAttributesCount: 0,
    });
    return this;
  }

  addLink(link: Link): this {
    if (this.done) return this;
    if (this.links === NONE) this.links = [];
    this.links.push(link);
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    // As the SDK: UNSET changes nothing, OK is final, a message belongs to an error only.
    if (this.done || status.code === 0 || this.status.code === 1) return this;
    this.status =
      status.code === 2 && typeof status.message === 'string'
        ? { code: 2, message: status.message }
        : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.done) this.name = name;
    return this;
  }

  isRecording(): boolean {
    return !this.done;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else if (exception) {
      const type = exception.code ?? exception.name;
      if (type !== undefined) attributes['exception.type'] = String(type);
      if (exception.message) attributes['exception.message'] = exception.message;
      if (exception.stack) attributes['exception.stacktrace'] = exception.stack;
    }
    if (attributes['exception.type'] || attributes['exception.message'])
      this.addEvent('exception', attributes, time);
  }

  end(endTime?: TimeInput): void {
    if (this.done) return;
    this.endTime = toHr(endTime);
    this.took = hrDuration(this.startTime, this.endTime);
    if (this.took[0] < 0) {
      this.endTime = [...this.startTime];
      this.took = [0, 0];
    }
    for (const processor of this.processors) processor.onEnding?.(this);
    this.done = true;
    for (const processor of this.processors) processor.onEnd(this);
  }
}

/**
 * Whether `span` is one of this tracer's and has ended: its attribute map then changes no more
 * (`setAttribute` after the end does nothing), so a processor may keep that map instead of a copy.
 */
export function hasFinalAttributes(span: ReadableSpan): boolean {
  return span instanceof LightSpan && span.ended;
}

class LightTracer implements Tracer {
  constructor(
    private readonly api: OtelApi,
    private readonly scope: ReadableSpan['instrumentationScope'],
    private readonly processors: readonly SpanProcessor[],
  ) {}

  startSpan(name: string, options: SpanOptions = {}, context?: Context): Span {
    const api = this.api;
    let parentContext = context ?? api.context.active();
    if (options.root) parentContext = api.trace.deleteSpan(parentContext);
    const parent = api.trace.getSpanContext(parentContext);
    const valid =
      parent !== undefined && (parent instanceof LightSpanContext || api.trace.isSpanContextValid(parent));
    const spanContext = new LightSpanContext(
      valid ? parent.traceId : randomHex(16),
      randomHex(8),
      valid ? parent.traceState : undefined,
    );
    const span = new LightSpan(
      name,
      options.kind ?? api.SpanKind.INTERNAL,
      spanContext,
      valid ? parent : undefined,
      this.scope,
      this.processors,
      options,
    );
    for (const processor of this.processors) processor.onStart(span, parentContext);
    return span;
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    context: Context,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    a?: SpanOptions | F,
    b?: Context | F,
    c?: F,
  ): ReturnType<F> {
    const fn = (typeof a === 'function' ? a : typeof b === 'function' ? b : c) as F;
    const options = typeof a === 'object' ? a : {};
    const parent = typeof b === 'object' ? b : this.api.context.active();
    const span = this.startSpan(name, options, parent);
    return this.api.context.with(this.api.trace.setSpan(parent, span), () => fn(span)) as ReturnType<F>;
  }
}

/**
 * The server's tracer provider when nothing is exported: spans go to `processors` (the in-process
 * store and the GenAI metrics), at a fraction of the SDK's cost per span.
 */
export class LightTracerProvider implements TracerProvider {
  private readonly tracers = new Map<string, LightTracer>();

  constructor(
    private readonly api: OtelApi,
    private readonly processors: readonly SpanProcessor[],
  ) {}

  getTracer(name: string, version?: string, options?: { schemaUrl?: string }): Tracer {
    const key = `${name}@${version ?? ''}:${options?.schemaUrl ?? ''}`;
    let tracer = this.tracers.get(key);
    if (!tracer) {
      tracer = new LightTracer(
        this.api,
        {
          name,
          ...(version !== undefined ? { version } : {}),
          ...(options?.schemaUrl !== undefined ? { schemaUrl: options.schemaUrl } : {}),
        },
        this.processors,
      );
      this.tracers.set(key, tracer);
    }
    return tracer;
  }

  async forceFlush(): Promise<void> {
    await Promise.all(this.processors.map((p) => p.forceFlush()));
  }

  async shutdown(): Promise<void> {
    await Promise.all(this.processors.map((p) => p.shutdown()));
  }
}
