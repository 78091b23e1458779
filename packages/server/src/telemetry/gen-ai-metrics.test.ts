import * as api from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GenAiMetricNames, GenAiMetricsProcessor } from './gen-ai-metrics.js';
import { LightTracerProvider } from './light-tracer.js';

// The GenAI metrics record through whichever meter provider is registered, including one
// registered after the first run; with none, the processor does no work per span.

/** A meter provider that keeps every histogram record. */
function recordingProvider(records: [string, number][]): api.MeterProvider {
  const meter = {
    createHistogram: (name: string) => ({ record: (value: number) => records.push([name, value]) }),
  };
  return { getMeter: () => meter as unknown as api.Meter };
}

/** One run as core traces it: a model call under the invocation span. */
function run(tracer: api.Tracer): void {
  const root = tracer.startSpan('invocation', { attributes: { 'adk.app_name': 'app' } });
  const chat = tracer.startSpan(
    'call_llm',
    {
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gemini-2.5-flash',
        'gen_ai.usage.input_tokens': 12,
        'gen_ai.usage.output_tokens': 5,
      },
    },
    api.trace.setSpan(api.ROOT_CONTEXT, root),
  );
  chat.end();
  root.end();
}

afterEach(() => {
  api.metrics.disable();
  vi.useRealTimers();
});

describe('GenAI metrics processor', () => {
  it('records nothing without a meter provider, and picks one up at the end of a run a second after it last looked', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const records: [string, number][] = [];
    const tracer = new LightTracerProvider(api, [new GenAiMetricsProcessor(api)]).getTracer('t');
    run(tracer);
    expect(records).toEqual([]);
    api.metrics.setGlobalMeterProvider(recordingProvider(records));
    // A run ending a second after the last look looks again; the runs after it record.
    vi.setSystemTime(Date.now() + 1000);
    run(tracer);
    run(tracer);
    expect(records.map(([name]) => name)).toEqual([
      GenAiMetricNames.operationDuration,
      GenAiMetricNames.tokenUsage,
      GenAiMetricNames.tokenUsage,
      GenAiMetricNames.runModelCalls,
      GenAiMetricNames.runToolCalls,
    ]);
    expect(records.slice(1, 3).map(([, value]) => value)).toEqual([12, 5]);
    expect(records[3]?.[1]).toBe(1);
  });
});
