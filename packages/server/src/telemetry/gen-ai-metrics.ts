import { evictOldest } from '@adk/core/internal';
import type { Attributes, Context, Histogram } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * The version of the OpenTelemetry GenAI semantic conventions whose names the server emits:
 * `gen_ai.provider.name` (not the deprecated `gen_ai.system`), `invoke_agent` / `execute_tool`
 * operations, and the client metrics below. Checked by `gen-ai-metrics.test.ts` against a list of
 * the names that version's registry publishes.
 */
export const GEN_AI_SEMCONV_VERSION = '1.37.0';

/** Metric names the server records (semantic-convention ones, and ADK's per-run counts). */
export const GenAiMetricNames = {
  tokenUsage: 'gen_ai.client.token.usage',
  operationDuration: 'gen_ai.client.operation.duration',
  runModelCalls: 'adk.run.model_calls',
  runToolCalls: 'adk.run.tool_calls',
} as const;

// The bucket boundaries the conventions advise for the two client histograms.
const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
const DURATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
const COUNT_BUCKETS = [0, 1, 2, 3, 5, 8, 13, 21, 34, 55];

/**
 * Whether `OTEL_SEMCONV_STABILITY_OPT_IN` asks for the older GenAI names as well (`gen_ai/dup`,
 * after the `http/dup` value of the HTTP migration): then model-call spans carry `gen_ai.system`
 * beside `gen_ai.provider.name`.
 */
export function emitsLegacyGenAiNames(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.OTEL_SEMCONV_STABILITY_OPT_IN ?? '')
    .split(',')
    .map((v) => v.trim())
    .includes('gen_ai/dup');
}

type OtelApi = typeof import('@opentelemetry/api');

interface Instruments {
  duration: Histogram;
  tokens: Histogram;
  modelCalls: Histogram;
  toolCalls: Histogram;
}

function nanos([seconds, nanoseconds]: [number, number]): number {
  return seconds * 1e9 + nanoseconds;
}

function pick(span: ReadableSpan, keys: readonly string[]): Attributes {
  const out: Attributes = {};
  for (const key of keys) {
    const value = span.attributes[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** The failed operation's error class, from the exception event core records (`_OTHER` without one). */
function errorType(span: ReadableSpan): string {
  const exception = span.events.find((e) => e.name === 'exception');
  const type = exception?.attributes?.['exception.type'];
  return typeof type === 'string' && type !== '' ? type : '_OTHER';
}

const MODEL_KEYS = [
  'gen_ai.operation.name',
  'gen_ai.provider.name',
  'gen_ai.request.model',
  'gen_ai.response.model',
];

/**
 * Records the GenAI client metrics from the spans core ends (one place, whatever the provider):
 * `gen_ai.client.operation.duration` (s) and `gen_ai.client.token.usage` (`{token}`, input and
 * output) per model call, and per run (`invocation` span) the number of model and tool calls.
 * Instruments come from the global meter provider (`@opentelemetry/sdk-node` registers one that
 * exports over OTLP); without one they are no-ops.
 */
export class GenAiMetricsProcessor implements SpanProcessor {
  private instruments: Instruments | undefined;
  /** The meter provider the instruments came from. */
  private provider: unknown;
  /** False while the instruments are the API's no-ops (no meter provider registered): nothing to record. */
  private recording = false;
  /** When the meter provider was last looked up (epoch ms). */
  private checkedAt = 0;
  /** Model and tool calls seen per open trace (bounded: oldest forgotten first). */
  private readonly counts = new Map<string, { model: number; tool: number }>();

  constructor(
    private readonly api: OtelApi,
    private readonly maxOpen = 10_000,
  ) {}

  /**
   * The instruments of the global meter provider, made again when another provider was registered
   * (the SDK's may come after this processor): looked up on first use, then at the end of a run at
   * most once a second.
   */
  private refresh(): Instruments {
    this.checkedAt = Date.now();
    const provider = this.api.metrics.getMeterProvider();
    if (this.instruments && provider === this.provider) return this.instruments;
    const meter = provider.getMeter('@adk/server');
    const duration = meter.createHistogram(GenAiMetricNames.operationDuration, {
      unit: 's',
      description: 'GenAI operation duration.',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    const tokens = meter.createHistogram(GenAiMetricNames.tokenUsage, {
      unit: '{token}',
      description: 'Number of input and output tokens used.',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    });
    const modelCalls = meter.createHistogram(GenAiMetricNames.runModelCalls, {
      unit: '{call}',
      description: 'Model calls per run (invocation).',
      advice: { explicitBucketBoundaries: COUNT_BUCKETS },
    });
    const toolCalls = meter.createHistogram(GenAiMetricNames.runToolCalls, {
      unit: '{call}',
      description: 'Tool calls per run (invocation).',
      advice: { explicitBucketBoundaries: COUNT_BUCKETS },
    });
    this.provider = provider;
    this.instruments = { duration, tokens, modelCalls, toolCalls };
    this.recording =
      duration !== this.api.createNoopMeter().createHistogram(GenAiMetricNames.operationDuration);
    return this.instruments;
  }

  onStart(_span: Span, _parentContext: Context): void {}

  private count(traceId: string): { model: number; tool: number } {
    let counts = this.counts.get(traceId);
    if (!counts) {
      counts = { model: 0, tool: 0 };
      this.counts.set(traceId, counts);
      evictOldest(this.counts, this.maxOpen);
    }
    return counts;
  }

  onEnd(span: ReadableSpan): void {
    const { duration, tokens, modelCalls, toolCalls } = this.instruments ?? this.refresh();
    if (!this.recording) {
      // Nothing records: only look again, at the end of a run, for a meter provider registered since.
      if (span.name === 'invocation') this.recheck();
      return;
    }
    const traceId = span.spanContext().traceId;
    const operation = span.attributes['gen_ai.operation.name'];
    const failed = span.status.code === 2;
    if (operation === 'chat') {
      this.count(traceId).model += 1;
      const attributes = pick(span, MODEL_KEYS);
      if (failed) attributes['error.type'] = errorType(span);
      duration.record((nanos(span.endTime) - nanos(span.startTime)) / 1e9, attributes);
      const input = span.attributes['gen_ai.usage.input_tokens'];
      const output = span.attributes['gen_ai.usage.output_tokens'];
      if (typeof input === 'number') tokens.record(input, { ...attributes, 'gen_ai.token.type': 'input' });
      if (typeof output === 'number') tokens.record(output, { ...attributes, 'gen_ai.token.type': 'output' });
    } else if (operation === 'execute_tool') {
      this.count(traceId).tool += 1;
    } else if (span.name === 'invocation') {
      const counts = this.counts.get(traceId) ?? { model: 0, tool: 0 };
      this.counts.delete(traceId);
      const attributes = pick(span, ['adk.app_name', 'gen_ai.agent.name']);
      modelCalls.record(counts.model, attributes);
      toolCalls.record(counts.tool, attributes);
      this.recheck();
    }
  }

  private recheck(): void {
    if (Date.now() - this.checkedAt >= 1000) this.refresh();
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
