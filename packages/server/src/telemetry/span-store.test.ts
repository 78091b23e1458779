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
    // A dropped trace takes its session's bookkeeping with it.
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
});
