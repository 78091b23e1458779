import { createContextKey, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FunctionTool, LlmAgent, runAgent } from '../index.js';
import { functionCallResponse, ScriptedModel } from '../testing/index.js';
import { endSpan, loadTelemetry, startSpan } from './tracing.js';

describe('telemetry', () => {
  const exporter = new InMemorySpanExporter();
  beforeAll(() => {
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
  });
  afterAll(() => {
    trace.disable();
  });

  it('records invocation, invoke_agent, call_llm and execute_tool spans with GenAI attributes', async () => {
    const tool = new FunctionTool({
      name: 'lookup',
      description: 'looks up',
      parameters: z.object({}),
      execute: () => ({ ok: 1 }),
    });
    const model = new ScriptedModel({
      model: 'scripted-pro',
      script: [
        functionCallResponse('lookup', {}, 'call-1'),
        {
          content: { role: 'model', parts: [{ text: 'done' }] },
          finishReason: 'STOP',
          usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 2 },
        },
      ],
    });
    await runAgent(new LlmAgent({ name: 'researcher', model, tools: [tool] }), 'go', { sessionId: 'sess-9' });
    const spans = exporter.getFinishedSpans();
    const names = spans.map((s) => s.name);
    expect(names).toEqual([
      'call_llm',
      'execute_tool lookup',
      'call_llm',
      'invoke_agent researcher',
      'invocation',
    ]);

    const byName = (n: string) => spans.filter((s) => s.name === n);
    const invocation = byName('invocation')[0]!;
    const agent = byName('invoke_agent researcher')[0]!;
    const [llm1, llm2] = byName('call_llm');
    const tool1 = byName('execute_tool lookup')[0]!;
    expect(agent.parentSpanContext?.spanId).toBe(invocation.spanContext().spanId);
    expect(llm1!.parentSpanContext?.spanId).toBe(agent.spanContext().spanId);
    expect(tool1.parentSpanContext?.spanId).toBe(agent.spanContext().spanId);
    expect(agent.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'researcher',
      'gen_ai.conversation.id': 'sess-9',
    });
    expect(llm2!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'scripted-pro',
      'gen_ai.usage.input_tokens': 7,
      'gen_ai.usage.output_tokens': 2,
      'gen_ai.response.finish_reasons': ['STOP'],
    });
    expect(tool1.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
      'gen_ai.tool.call.id': 'call-1',
    });
  });

  it("gives a span a context that keeps its parent context's values", async () => {
    await loadTelemetry();
    const key = createContextKey('caller value');
    const other = createContextKey('other value');
    const outer = startSpan('outer', { span: undefined, context: ROOT_CONTEXT.setValue(key, 'kept') });
    const inner = startSpan('inner', outer);
    const context = inner.context as typeof ROOT_CONTEXT;
    expect(context.getValue(key)).toBe('kept');
    expect(context.getValue(other)).toBeUndefined();
    expect(trace.getSpan(context)).toBe(inner.span);
    expect(trace.getSpan(outer.context as typeof ROOT_CONTEXT)).toBe(outer.span);
    // A value set or deleted on a span's context changes only the context it makes.
    const set = context.setValue(key, 'replaced').setValue(other, 'added');
    expect([set.getValue(key), set.getValue(other), trace.getSpan(set)]).toEqual([
      'replaced',
      'added',
      inner.span,
    ]);
    expect(set.deleteValue(key).getValue(key)).toBeUndefined();
    expect(trace.getSpan(trace.deleteSpan(context))).toBeUndefined();
    expect([context.getValue(key), trace.getSpan(context)]).toEqual(['kept', inner.span]);
    endSpan(inner);
    endSpan(outer);
    const [innerSpan, outerSpan] = exporter.getFinishedSpans().slice(-2);
    expect(innerSpan?.name).toBe('inner');
    expect(innerSpan?.parentSpanContext?.spanId).toBe(outerSpan?.spanContext().spanId);
  });
});
