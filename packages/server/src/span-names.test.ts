import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemorySpanStore, modelSpanNaming } from './index.js';

// The model-call span's name per OTEL_SEMCONV_STABILITY_OPT_IN: ADK's `call_llm` by default and
// with `gen_ai/dup`; the registry's `chat {model}` with `gen_ai_latest_experimental`. The name is
// set before the span ends, so the trace store and every exporter see the same one.

const saved = process.env.OTEL_SEMCONV_STABILITY_OPT_IN;
afterEach(() => {
  if (saved === undefined) delete process.env.OTEL_SEMCONV_STABILITY_OPT_IN;
  else process.env.OTEL_SEMCONV_STABILITY_OPT_IN = saved;
});

function modelCall(optIn: string | undefined) {
  if (optIn === undefined) delete process.env.OTEL_SEMCONV_STABILITY_OPT_IN;
  else process.env.OTEL_SEMCONV_STABILITY_OPT_IN = optIn;
  const store = new InMemorySpanStore();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [store, new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('test');
  const span = tracer.startSpan('call_llm', {
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gemini-2.5-flash',
      'gen_ai.conversation.id': 's1',
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 2,
    },
  });
  span.end();
  const traceId = span.spanContext().traceId;
  const stored = store.traceSpans(traceId);
  return {
    stored: stored.map((s) => s.name),
    exported: exporter.getFinishedSpans().map((s) => s.name),
    attributes: stored[0]?.attributes ?? {},
  };
}

describe('the model-call span name', () => {
  it('is call_llm by default (ADK), with the current attributes', () => {
    const { stored, exported, attributes } = modelCall(undefined);
    expect(stored).toEqual(['call_llm']);
    expect(exported).toEqual(['call_llm']);
    expect(attributes['gen_ai.provider.name']).toBe('gcp.gemini');
    expect(attributes['gen_ai.system']).toBeUndefined();
  });

  it('is `chat {model}` with gen_ai_latest_experimental, in the store and in exports', () => {
    const { stored, exported, attributes } = modelCall('http,gen_ai_latest_experimental');
    expect(stored).toEqual(['chat gemini-2.5-flash']);
    expect(exported).toEqual(['chat gemini-2.5-flash']);
    // Still priced, still linked as the session's model call.
    expect(attributes['adk.usage.cost_usd']).toBeGreaterThan(0);
  });

  it('stays call_llm with gen_ai/dup, which also adds gen_ai.system, and wins over latest', () => {
    const dup = modelCall('gen_ai/dup');
    expect(dup.stored).toEqual(['call_llm']);
    expect(dup.attributes['gen_ai.system']).toBe('gcp.gemini');
    expect(modelCall('gen_ai_latest_experimental,gen_ai/dup').exported).toEqual(['call_llm']);
  });

  it('reads the variable as documented', () => {
    expect(modelSpanNaming({})).toBe('adk');
    expect(modelSpanNaming({ OTEL_SEMCONV_STABILITY_OPT_IN: ' gen_ai_latest_experimental ' })).toBe('latest');
    expect(modelSpanNaming({ OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai/dup,gen_ai_latest_experimental' })).toBe(
      'adk',
    );
  });
});
