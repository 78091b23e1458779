import type { StoredSpan, TraceStore, TraceSummary } from '@adk/core';
import { describe, expect, it, vi } from 'vitest';
import { TraceWriter, type TraceWriterOptions } from '../index.js';
import type { InMemorySpanStore } from './span-store.js';

// The writer holds the spans of a running trace until its run ends (or holdMs passes), so a link
// or payload added just after a span ends goes out with the span's first write.

const MS = 1e6;

// Like the span store, a record handed over again (the same object) is an annotation.
function source(): { store: InMemorySpanStore; emit(record: StoredSpan): void; forgotten: string[] } {
  let listener: ((record: StoredSpan, annotation: boolean) => void) | undefined;
  const emitted = new WeakSet<StoredSpan>();
  const forgotten: string[] = [];
  const store = {
    subscribe(l: (record: StoredSpan, annotation: boolean) => void) {
      listener = l;
      return () => {
        listener = undefined;
      };
    },
    forgetWritten(traceIds: Iterable<string>) {
      forgotten.push(...traceIds);
    },
  } as unknown as InMemorySpanStore;
  return {
    store,
    forgotten,
    emit: (record) => {
      const annotation = emitted.has(record);
      emitted.add(record);
      listener?.(record, annotation);
    },
  };
}

function recorder(): {
  store: TraceStore;
  writes: { spans: StoredSpan[]; traces: TraceSummary[] }[];
} {
  const writes: { spans: StoredSpan[]; traces: TraceSummary[] }[] = [];
  const store = {
    async writeSpans(spans: readonly StoredSpan[], traces: readonly TraceSummary[]) {
      writes.push({ spans: structuredClone([...spans]), traces: [...traces] });
    },
    prune: async () => 0,
  } as unknown as TraceStore;
  return { store, writes };
}

const logger = { info() {}, warn() {}, error() {} };

/** `to`, failing with "database down" while `down()` says so. */
function failingWhile(to: TraceStore, down: () => boolean): TraceStore {
  return {
    ...to,
    writeSpans: async (spans: readonly StoredSpan[], traces: readonly TraceSummary[]) => {
      if (down()) throw new Error('database down');
      return to.writeSpans(spans, traces);
    },
  } as TraceStore;
}

/** A writer whose warnings are kept in `warnings`, with no pruning timer. */
function warningWriter(
  from: InMemorySpanStore,
  to: TraceStore,
  warnings: string[],
  options: TraceWriterOptions,
): TraceWriter {
  return new TraceWriter(
    from,
    to,
    { ...logger, warn: (m: string) => warnings.push(m) },
    {
      pruneIntervalMs: 0,
      ...options,
    },
  );
}

function span(traceId: string, spanId: string, parent: string | null, endMs: number): StoredSpan {
  return {
    name: parent === null ? 'invocation' : 'call_llm',
    trace_id: traceId,
    span_id: spanId,
    parent_span_id: parent,
    start_time: (endMs - 5) * MS,
    end_time: endMs * MS,
    attributes: { 'gen_ai.conversation.id': 's1' },
    status: 'unset',
  };
}

describe('TraceWriter', () => {
  it('writes a running trace’s spans with its summary once the run ends, event links included', async () => {
    const { store: from, emit, forgotten } = source();
    const { store: to, writes } = recorder();
    const writer = new TraceWriter(from, to, logger, { flushIntervalMs: 5, pruneIntervalMs: 0 });
    try {
      const now = Date.now();
      const chat = span('t1', 'c', 'r', now);
      emit(chat);
      // Several timer ticks pass while the run goes on: nothing of t1 is written.
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(writes.flatMap((w) => w.spans)).toEqual([]);
      chat.attributes['gcp.vertex.agent.event_id'] = 'ev-1';
      emit(chat);
      emit(span('t1', 'r', null, Date.now()));
      await vi.waitFor(() => expect(writes.flatMap((w) => w.traces)).toHaveLength(1), { timeout: 10_000 });
      const spans = writes.flatMap((w) => w.spans);
      // Each span once, the link in its only write, in the same batch as the summary.
      expect(spans.map((s) => s.span_id).sort()).toEqual(['c', 'r']);
      expect(spans.find((s) => s.span_id === 'c')?.attributes['gcp.vertex.agent.event_id']).toBe('ev-1');
      expect(writes.find((w) => w.traces.length > 0)?.spans).toHaveLength(2);
      expect(writes.find((w) => w.traces.length > 0)?.traces[0]).toMatchObject({
        trace_id: 't1',
        span_count: 2,
      });
      // The process then forgets the written trace: the routes read it from the store.
      expect(forgotten).toEqual(['t1']);
    } finally {
      await writer.close();
    }
  });

  it('writes a span annotated after its write again, without counting it twice', async () => {
    const { store: from, emit } = source();
    const { store: to, writes } = recorder();
    const writer = new TraceWriter(from, to, logger, { flushIntervalMs: 5, pruneIntervalMs: 0 });
    try {
      const chat = span('t4', 'c4', 'r4', Date.now());
      emit(chat);
      emit(span('t4', 'r4', null, Date.now()));
      await vi.waitFor(() => expect(writes.flatMap((w) => w.traces)).toHaveLength(1), { timeout: 10_000 });
      const before = writes.length;
      chat.attributes['gcp.vertex.agent.event_id'] = 'ev-4';
      emit(chat);
      await vi.waitFor(() => expect(writes.length).toBeGreaterThan(before), { timeout: 10_000 });
      const again = writes.slice(before);
      expect(
        again.flatMap((w) => w.spans).map((s) => [s.span_id, s.attributes['gcp.vertex.agent.event_id']]),
      ).toEqual([['c4', 'ev-4']]);
      // The summary already went out with span_count 2; the annotation sends no new summary.
      expect(again.flatMap((w) => w.traces)).toEqual([]);
      expect(writes.flatMap((w) => w.traces)[0]).toMatchObject({ trace_id: 't4', span_count: 2 });
    } finally {
      await writer.close();
    }
  });

  it('keeps a failed batch and writes it with the next one', async () => {
    const { store: from, emit, forgotten } = source();
    const { store: to, writes } = recorder();
    let failures = 1;
    const flaky = failingWhile(to, () => failures-- > 0);
    const warnings: string[] = [];
    const writer = warningWriter(from, flaky, warnings, { flushIntervalMs: 5 });
    try {
      emit(span('t5', 'c5', 'r5', Date.now()));
      emit(span('t5', 'r5', null, Date.now()));
      await vi.waitFor(() => expect(writes.flatMap((w) => w.traces)).toHaveLength(1), { timeout: 10_000 });
      expect(warnings.join('\n')).toContain('database down');
      expect(
        writes
          .flatMap((w) => w.spans)
          .map((s) => s.span_id)
          .sort(),
      ).toEqual(['c5', 'r5']);
      expect(writes.flatMap((w) => w.traces)[0]).toMatchObject({ trace_id: 't5', span_count: 2 });
      // Forgotten once, after the write that succeeded.
      expect(forgotten).toEqual(['t5']);
    } finally {
      await writer.close();
    }
  });

  it('holds at most maxPending spans while the database is down, and says how many it dropped', async () => {
    const { store: from, emit } = source();
    const { store: to, writes } = recorder();
    let down = true;
    const warnings: string[] = [];
    // A write only when told (flush): the spans below all wait in the writer.
    const writer = warningWriter(
      from,
      failingWhile(to, () => down),
      warnings,
      {
        flushIntervalMs: 60_000,
        batchSize: 1000,
        maxPending: 4,
      },
    );
    try {
      // What the writer holds: the spans told since its last write and those pending.
      const internals = writer as unknown as { told: unknown[]; pending: Set<unknown> };
      const held = () => internals.told.length + internals.pending.size;
      const now = Date.now();
      for (let i = 0; i < 10; i++) {
        emit(span(`t${i}`, `s${i}`, 'open', now));
        expect(held()).toBeLessThanOrEqual(4);
      }
      await writer.flush();
      expect(warnings).toContain('Trace store: 6 spans dropped while writes were behind.');
      // Spans that end between two failed writes are dropped at once too.
      for (let i = 10; i < 13; i++) {
        emit(span(`t${i}`, `s${i}`, 'open', now));
        expect(held()).toBeLessThanOrEqual(4);
      }
      await writer.flush();
      expect(warnings).toContain('Trace store: 3 spans dropped while writes were behind.');
      down = false;
      await writer.flush();
      // The first four spans, each written once.
      expect(writes.flatMap((w) => w.spans.map((s) => s.span_id))).toEqual(['s0', 's1', 's2', 's3']);
    } finally {
      await writer.close();
    }
  });

  it('writes a span of a trace that does not end after holdMs, and everything on flush', async () => {
    const { store: from, emit } = source();
    const { store: to, writes } = recorder();
    const writer = new TraceWriter(from, to, logger, { flushIntervalMs: 5, holdMs: 50, pruneIntervalMs: 0 });
    try {
      emit(span('t2', 'long', 'r2', Date.now()));
      await vi.waitFor(() => expect(writes.flatMap((w) => w.spans.map((s) => s.span_id))).toEqual(['long']), {
        timeout: 10_000,
      });
      const held = new TraceWriter(from, to, logger, { flushIntervalMs: 60_000, pruneIntervalMs: 0 });
      emit(span('t3', 'open', 'r3', Date.now()));
      await held.flush();
      expect(writes.at(-1)?.spans.map((s) => s.span_id)).toEqual(['open']);
      await held.close();
    } finally {
      await writer.close();
    }
  });
});
