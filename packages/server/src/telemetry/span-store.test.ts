import * as api from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { LightTracerProvider } from './light-tracer.js';
import { InMemorySpanStore } from './span-store.js';

// The bounds of the in-process span store, as a server with a persistent trace store lowers them.

function recordTurns(store: InMemorySpanStore, sessions: string[]): void {
  const tracer = new LightTracerProvider(api, [store]).getTracer('test');
  for (const session of sessions) {
    const root = tracer.startSpan('invocation', { attributes: { 'gen_ai.conversation.id': session } });
    const ctx = api.trace.setSpan(api.context.active(), root);
    const chat = tracer.startSpan(
      'call_llm',
      { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.conversation.id': session } },
      ctx,
    );
    chat.end();
    store.linkEvent(session, `event-${session}`, 'llm');
    root.end();
  }
}

describe('InMemorySpanStore limits', () => {
  it('keeps the newest traces and event links within the configured limits', () => {
    const store = new InMemorySpanStore();
    store.configure({ limits: { maxTraces: 3, maxEvents: 2 } });
    recordTurns(store, ['s1', 's2', 's3', 's4', 's5']);
    expect(store.listTraces().traces.map((t) => t.session_id)).toEqual(['s5', 's4', 's3']);
    // A dropped trace's spans are no session's any more.
    expect(store.sessionSpans('s1')).toEqual([]);
    expect(store.sessionSpans('s4').map((s) => s.name)).toEqual(['invocation', 'call_llm']);
    expect(store.eventTrace('event-s3')).toBeUndefined();
    expect(store.eventTrace('event-s5')).toMatchObject({ 'gen_ai.operation.name': 'chat' });
  });

  it('raises its limits again when configured back', () => {
    const store = new InMemorySpanStore({ maxTraces: 2 });
    recordTurns(store, ['a', 'b', 'c']);
    expect(store.listTraces().traces).toHaveLength(2);
    store.configure({ limits: { maxTraces: 10 } });
    recordTurns(store, ['d', 'e', 'f']);
    expect(store.listTraces().traces).toHaveLength(5);
  });

  it('forgets written traces but keeps each session’s latest spans for a late event link', () => {
    const store = new InMemorySpanStore();
    const annotated: string[] = [];
    store.subscribe((record, annotation) => {
      if (annotation) annotated.push(String(record.attributes['gcp.vertex.agent.event_id']));
    });
    recordTurns(store, ['s1', 's2']);
    const [second, first] = store.listTraces().traces;
    store.forgetWritten([first?.trace_id ?? '', 'unknown-trace']);
    // The written trace is read from the persistent store now; the other stays here.
    expect(store.traceSpans(first?.trace_id ?? '')).toEqual([]);
    expect(store.sessionSpans('s1')).toEqual([]);
    expect(store.eventTrace('event-s1')).toBeUndefined();
    expect(store.listTraces().traces.map((t) => t.trace_id)).toEqual([second?.trace_id]);
    expect(store.eventTrace('event-s2')).toMatchObject({ 'gen_ai.operation.name': 'chat' });

    // A turn whose event is linked only after its trace was written: the link still reaches the
    // session's latest model call, and the writer is told (it writes the span again).
    const tracer = new LightTracerProvider(api, [store]).getTracer('test');
    const root = tracer.startSpan('invocation', { attributes: { 'gen_ai.conversation.id': 's3' } });
    tracer
      .startSpan(
        'call_llm',
        { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.conversation.id': 's3' } },
        api.trace.setSpan(api.context.active(), root),
      )
      .end();
    root.end();
    store.forgetWritten([root.spanContext().traceId]);
    store.linkEvent('s3', 'late-event', 'llm');
    expect(store.eventTrace('late-event')).toMatchObject({ 'gen_ai.conversation.id': 's3' });
    expect(annotated).toEqual(['event-s1', 'event-s2', 'late-event']);
  });

  it('keeps span times at the microsecond precision a persistent store keeps', () => {
    const store = new InMemorySpanStore();
    const tracer = new LightTracerProvider(api, [store]).getTracer('test');
    const span = tracer.startSpan('invocation', { startTime: [1_795_975_527, 410_173_689] });
    span.end([1_795_975_527, 417_870_312]);
    const [record] = store.traceSpans(span.spanContext().traceId);
    // What SqlTraceStore gives back for it: whole microseconds, times 1000.
    expect(record?.start_time).toBe(1_795_975_527_410_174 * 1000);
    expect(record?.end_time).toBe(1_795_975_527_417_870 * 1000);
  });
});
