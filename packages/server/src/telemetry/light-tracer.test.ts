import * as api from '@opentelemetry/api';
import { BasicTracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { LightTracerProvider } from './light-tracer.js';

/** Records what a processor is told, in order. */
function recorder(): SpanProcessor & { calls: string[]; ended: ReadableSpan[] } {
  const calls: string[] = [];
  const ended: ReadableSpan[] = [];
  return {
    calls,
    ended,
    onStart: (span) => calls.push(`start ${(span as unknown as ReadableSpan).name}`),
    onEnding: (span) => {
      calls.push(`ending ${span.name}`);
      // Still writable while ending (the span store adds the provider name and the cost here).
      span.setAttribute('added.on_ending', true);
    },
    onEnd: (span) => {
      calls.push(`end ${span.name}`);
      ended.push(span);
    },
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  };
}

/** The same calls as the runtime makes them, on any tracer. */
function exercise(tracer: api.Tracer): void {
  const root = tracer.startSpan('invocation', { attributes: { 'app.name': 'bench', skipped: undefined } });
  const ctx = api.trace.setSpan(api.ROOT_CONTEXT, root);
  const child = tracer.startSpan('call_llm', { kind: api.SpanKind.CLIENT }, ctx);
  child.setAttributes({
    'gen_ai.request.model': 'gemini-2.5-flash',
    'gen_ai.usage.input_tokens': 12,
    'list.ok': ['a', null, 'b'],
    'list.mixed': ['a', 1] as unknown as string[],
    'an.object': { nested: true } as unknown as string,
    '': 'empty key',
  });
  child.recordException(new TypeError('bad input'));
  child.setStatus({ code: api.SpanStatusCode.ERROR, message: 'bad input' });
  child.updateName('call_llm gemini-2.5-flash');
  child.end();
  child.setAttribute('after.end', 1);
  child.end();
  const ok = tracer.startSpan('execute_tool', {}, ctx);
  // Valid first attributes (the runtime's case), then more, one of them invalid.
  ok.setAttributes({ 'gen_ai.tool.name': 'lookup', 'gen_ai.tool.call.id': 'c-1', count: 1 });
  ok.setAttributes({ count: 2, 'an.object': {} as unknown as string });
  ok.addLink({ context: child.spanContext() });
  ok.setStatus({ code: api.SpanStatusCode.OK });
  ok.setStatus({ code: api.SpanStatusCode.ERROR, message: 'ignored after OK' });
  ok.addEvent('progress', { step: 1 });
  ok.end();
  root.end();
}

/** What the span processors read of a span, with ids and times made comparable. */
function shape(spans: ReadableSpan[]) {
  const ids = new Map<string, string>();
  const id = (value: string | undefined) =>
    value === undefined ? undefined : (ids.get(value) ?? ids.set(value, `#${ids.size}`).get(value));
  return spans.map((s) => ({
    name: s.name,
    kind: s.kind,
    traceId: id(s.spanContext().traceId),
    spanId: id(s.spanContext().spanId),
    sampled: s.spanContext().traceFlags,
    parent: id(s.parentSpanContext?.spanId),
    attributes: s.attributes,
    links: s.links.map((l) => id(l.context.spanId)),
    status: s.status,
    events: s.events.map((e) => ({
      name: e.name,
      attributes: {
        ...e.attributes,
        'exception.stacktrace': e.attributes?.['exception.stacktrace'] ? 'x' : undefined,
      },
    })),
    ended: s.ended,
    ordered: s.endTime[0] * 1e9 + s.endTime[1] >= s.startTime[0] * 1e9 + s.startTime[1],
    duration: s.duration[0] * 1e9 + s.duration[1] >= 0,
    scope: s.instrumentationScope.name,
  }));
}

describe('LightTracerProvider', () => {
  it('hands the span processors the same spans as the SDK provider', () => {
    const sdk = recorder();
    const light = recorder();
    exercise(new BasicTracerProvider({ spanProcessors: [sdk] }).getTracer('@adk/core'));
    exercise(new LightTracerProvider(api, [light]).getTracer('@adk/core'));
    expect(light.calls).toEqual(sdk.calls);
    expect(shape(light.ended)).toEqual(shape(sdk.ended));
    const [child] = light.ended;
    expect(child?.attributes).toMatchObject({ 'added.on_ending': true, 'list.ok': ['a', null, 'b'] });
    expect(child?.attributes).not.toHaveProperty('after.end');
    expect(child?.attributes).not.toHaveProperty('an.object');
    // Lists a span never added to stay its own: another span's entries do not show in them.
    const [, tool, root] = light.ended;
    expect(tool?.attributes).toMatchObject({ 'gen_ai.tool.name': 'lookup', count: 2 });
    expect(tool?.links).toHaveLength(1);
    expect(root?.links).toEqual([]);
    expect(root?.events).toEqual([]);
  });

  it('makes valid ids: a root starts a trace, a child keeps it, options.root starts a new one', () => {
    const light = recorder();
    const tracer = new LightTracerProvider(api, [light]).getTracer('t');
    const root = tracer.startSpan('root');
    const ctx = api.trace.setSpan(api.ROOT_CONTEXT, root);
    const child = tracer.startSpan('child', {}, ctx);
    const detached = tracer.startSpan('detached', { root: true }, ctx);
    for (const span of [root, child, detached]) {
      expect(api.trace.isSpanContextValid(span.spanContext())).toBe(true);
      span.end();
    }
    expect(child.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(detached.spanContext().traceId).not.toBe(root.spanContext().traceId);
    expect((light.ended[1] as ReadableSpan).parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect((light.ended[2] as ReadableSpan).parentSpanContext).toBeUndefined();
  });

  it('hands out distinct, well-formed ids across many blocks of random bytes', () => {
    const tracer = new LightTracerProvider(api, [recorder()]).getTracer('t');
    const traces = new Set<string>();
    const spans = new Set<string>();
    // 2,000 roots (24 random bytes each) cross a dozen 4 KB blocks.
    for (let i = 0; i < 2000; i++) {
      const { traceId, spanId } = tracer.startSpan('root').spanContext();
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(spanId).toMatch(/^[0-9a-f]{16}$/);
      traces.add(traceId);
      spans.add(spanId);
    }
    expect(traces.size).toBe(2000);
    expect(spans.size).toBe(2000);
  });

  it('runs startActiveSpan with the span as the active one, and returns what the function returns', () => {
    const light = recorder();
    const tracer = new LightTracerProvider(api, [light]).getTracer('t');
    const got = tracer.startActiveSpan('active', { attributes: { a: 1 } }, (span) => {
      span.end();
      return span.spanContext().spanId;
    });
    expect(got).toBe(light.ended[0]?.spanContext().spanId);
    expect(light.ended[0]?.attributes).toMatchObject({ a: 1 });
  });

  it('flushes and shuts down its processors', async () => {
    const told: string[] = [];
    const processor = {
      ...recorder(),
      forceFlush: async () => void told.push('flush'),
      shutdown: async () => void told.push('shutdown'),
    };
    const provider = new LightTracerProvider(api, [processor]);
    await provider.forceFlush();
    await provider.shutdown();
    expect(told).toEqual(['flush', 'shutdown']);
  });
});
