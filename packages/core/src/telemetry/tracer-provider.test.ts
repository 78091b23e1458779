import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { LlmAgent, runAgent } from '../index.js';
import { ScriptedModel } from '../testing/index.js';

function register(exporter: InMemorySpanExporter): void {
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
}

const turn = (sessionId: string) =>
  runAgent(new LlmAgent({ name: 'helper', model: new ScriptedModel(['hi']) }), 'go', { sessionId });

describe('tracer provider registered, replaced or absent between runs', () => {
  afterAll(() => {
    trace.disable();
  });

  it('runs without a provider, then records to whichever provider is registered at the time of the run', async () => {
    trace.disable();
    await turn('no-provider');

    const first = new InMemorySpanExporter();
    register(first);
    await turn('first');
    expect(first.getFinishedSpans().map((s) => s.name)).toEqual([
      'call_llm',
      'invoke_agent helper',
      'invocation',
    ]);

    // An application that swaps its SDK: spans go to the new one only.
    trace.disable();
    const second = new InMemorySpanExporter();
    register(second);
    await turn('second');
    expect(second.getFinishedSpans().map((s) => s.name)).toEqual([
      'call_llm',
      'invoke_agent helper',
      'invocation',
    ]);
    expect(first.getFinishedSpans()).toHaveLength(3);

    // Without a provider again, nothing is recorded anywhere.
    trace.disable();
    await turn('none-again');
    expect(first.getFinishedSpans()).toHaveLength(3);
    expect(second.getFinishedSpans()).toHaveLength(3);
  });
});
