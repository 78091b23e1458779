// OpenTelemetry through `@opentelemetry/api` only (an optional peer). The API is loaded lazily once;
// without it, or without a registered SDK, spans are no-ops and cost next to nothing.
// Its types stay inside this file: public declarations use the structural types below, so a
// consumer without the optional peer still type-checks (`skipLibCheck: false`).
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';

type OtelApi = typeof import('@opentelemetry/api');

/** Span attribute values, as OpenTelemetry accepts them. */
export type SpanAttributes = Record<
  string,
  | string
  | number
  | boolean
  | (string | null | undefined)[]
  | (number | null | undefined)[]
  | (boolean | null | undefined)[]
  | undefined
>;

/** The part of an OpenTelemetry span the runtime uses (any OpenTelemetry `Span` fits). */
export interface SpanLike {
  setAttributes(attributes: SpanAttributes): unknown;
  end(): void;
}

let api: OtelApi | null | undefined;
let spanKey: symbol | undefined;
let loading: Promise<void> | undefined;

/** Loads `@opentelemetry/api` if installed. Safe to call often; resolves immediately after the first time. */
export function loadTelemetry(): Promise<void> {
  if (api !== undefined) return Promise.resolve();
  loading ??= import('@opentelemetry/api').then(
    (m) => {
      api = m;
    },
    () => {
      api = null;
    },
  );
  return loading;
}

const TRACER_NAME = '@adk/core';

/** The span an operation runs under (undefined when telemetry is off). */
export interface TraceContext {
  readonly span: SpanLike | undefined;
  /** An OpenTelemetry `Context` (opaque here). */
  readonly context: unknown;
}

export const NO_TRACE: TraceContext = { span: undefined, context: undefined };

/** The tracer of the global provider it was taken from: one per provider, not one per span. */
let tracerOf: { provider: unknown; tracer: Tracer } | undefined;

function tracer(): Tracer | undefined {
  if (!api) return undefined;
  // Re-taken when the global provider is replaced (`trace.disable()`, then a new one registered);
  // a provider's proxy tracer picks up an SDK registered later by itself.
  const provider = api.trace.getTracerProvider();
  if (tracerOf?.provider !== provider) tracerOf = { provider, tracer: provider.getTracer(TRACER_NAME) };
  return tracerOf.tracer;
}

/**
 * A context with one value set on its parent: a link to the parent, where the API's default context
 * copies the parent's whole map and makes three closures on every set (one per span started).
 */
class ContextLink implements Context {
  constructor(
    private readonly parent: Context,
    private readonly key: symbol,
    private readonly value: unknown,
  ) {}

  getValue(key: symbol): unknown {
    return key === this.key ? this.value : this.parent.getValue(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return new ContextLink(this, key, value);
  }

  deleteValue(key: symbol): Context {
    return new ContextLink(this, key, undefined);
  }
}

/** Starts a child span of `parent`. `attributes` is only evaluated when the span records. */
export function startSpan(
  name: string,
  parent: TraceContext,
  attributes?: () => SpanAttributes,
): TraceContext {
  // A child of a recording span takes the tracer looked up last (its trace's, unless the global
  // provider was replaced since): only a trace's root looks the provider up.
  const t = parent.span && tracerOf ? tracerOf.tracer : tracer();
  if (!t || !api) return NO_TRACE;
  const parentContext = (parent.context as Context | undefined) ?? api.context.active();
  const span = t.startSpan(name, {}, parentContext);
  if (!span.isRecording()) {
    // Nothing records (no SDK, or not sampled): children share the parent's trace context.
    return parent.span === undefined && parent.context === parentContext
      ? parent
      : { span: undefined, context: parentContext };
  }
  if (attributes) span.setAttributes(attributes() as Attributes);
  // The key `trace.setSpan` sets (`createContextKey` is `Symbol.for` of its description).
  spanKey ??= api.createContextKey('OpenTelemetry Context Key SPAN');
  return { span, context: new ContextLink(parentContext, spanKey, span) };
}

export function setSpanAttributes(trace: TraceContext, attributes: () => SpanAttributes): void {
  if (trace.span) trace.span.setAttributes(attributes());
}

/** Ends the span, recording an error status when given one. */
export function endSpan(trace: TraceContext, error?: unknown): void {
  const span = trace.span as Span | undefined;
  if (!span) return;
  if (error !== undefined && api) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({
      code: api.SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
  }
  span.end();
}

/**
 * OpenTelemetry GenAI semantic-convention attribute names used by the runtime. The runtime's own
 * spans spell them as literal keys: an object literal with computed keys (`[GenAi.agentName]`)
 * costs several times as much per span.
 */
export const GenAi = {
  operationName: 'gen_ai.operation.name',
  system: 'gen_ai.system',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  finishReasons: 'gen_ai.response.finish_reasons',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolDescription: 'gen_ai.tool.description',
  conversationId: 'gen_ai.conversation.id',
  agentName: 'gen_ai.agent.name',
  agentDescription: 'gen_ai.agent.description',
} as const;
