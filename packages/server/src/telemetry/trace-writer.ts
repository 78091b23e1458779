import { type StoredSpan, type TraceStore, TraceSummarizer, type TraceSummary } from '@adk/core';
import { evictOldest } from '@adk/core/internal';
import type { AdkServerLogger } from '../server/logger.js';
import type { InMemorySpanStore } from './span-store.js';

export interface TraceWriterOptions {
  /** Longest a finished span waits before it is written, ms. Default 250. */
  flushIntervalMs?: number;
  /** Spans told (annotations counted) that trigger a write at once. Default 500. */
  batchSize?: number;
  /** Spans held at most while the database is slow or down (newer ones are dropped). Default 20 000. */
  maxPending?: number;
  /** How often retention runs, ms. Default 10 minutes; 0 turns it off. */
  pruneIntervalMs?: number;
  /**
   * Longest a span of a trace still running waits for its trace to end, ms (default 1000). Spans of a
   * running trace are held so that the event link or payload added just after a span ends goes out
   * with its first write, not as a second write of the row; a trace's spans and summary are written
   * together once its run ends.
   */
  holdMs?: number;
}

/**
 * Copies the spans the in-process store receives to a persistent trace store, in batches, off the
 * request path: a span's end only appends it to a list; a timer (or a full batch) writes the spans of
 * the traces that ended (and those held longer than `holdMs`) with their summaries. A failed write
 * is logged and its spans retried with the next batch, never surfaced to a run.
 */
export class TraceWriter {
  private pending = new Set<StoredSpan>();
  /**
   * Spans told since the last write, and whether each was told at its end (not as an annotation):
   * a span's end only appends here; the pending set and the summaries take them a batch at a time.
   */
  private told: StoredSpan[] = [];
  private toldAtEnd: boolean[] = [];
  private summaries = new Map<string, TraceSummary>();
  private readonly summarizer = new TraceSummarizer();
  private readonly unsubscribe: () => void;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly pruner: ReturnType<typeof setInterval> | undefined;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;
  private dropped = 0;
  /** Traces whose summary was taken (their run ended): their spans are written at once. */
  private readonly ended = new Set<string>();
  /** Spans left pending by the last timed write (running traces): not counted towards a full batch. */
  private held = 0;
  private readonly holdMs: number;
  private readonly flushIntervalMs: number;
  private readonly batchSize: number;
  private readonly maxPending: number;

  constructor(
    private readonly source: InMemorySpanStore,
    private readonly store: TraceStore,
    private readonly logger: AdkServerLogger,
    options: TraceWriterOptions = {},
  ) {
    this.flushIntervalMs = options.flushIntervalMs ?? 250;
    this.batchSize = options.batchSize ?? 500;
    this.maxPending = options.maxPending ?? 20_000;
    this.holdMs = options.holdMs ?? 1000;
    this.unsubscribe = source.subscribe((record, annotation) => this.add(record, annotation));
    const pruneEvery = options.pruneIntervalMs ?? 600_000;
    if (pruneEvery > 0) {
      this.pruner = setInterval(() => {
        store.prune().catch((error: unknown) => this.warn('pruning', error));
      }, pruneEvery);
      this.pruner.unref?.();
    }
  }

  private add(record: StoredSpan, annotation: boolean): void {
    if (this.closed) return;
    this.told.push(record);
    this.toldAtEnd.push(!annotation);
    // While writes are behind (a slow or unreachable database), the list and the pending set hold
    // maxPending spans at most together: at the bound, the list goes into the set (which drops).
    if (this.told.length + this.pending.size >= this.maxPending) this.absorb();
    if (this.pending.size + this.told.length - this.held >= this.batchSize) this.schedule(0);
    else this.schedule(this.flushIntervalMs);
  }

  /** Takes the spans told since the last write into the pending set and the summaries. */
  private absorb(): void {
    const told = this.told;
    const atEnd = this.toldAtEnd;
    if (told.length === 0) return;
    this.told = [];
    this.toldAtEnd = [];
    for (let i = 0; i < told.length; i++) {
      const record = told[i] as StoredSpan;
      // The store hands over one record object per span and annotates that same object, so pending
      // spans are kept by identity: an annotated span still pending goes out in its newest state.
      // Within the bound, adding is the test; at the bound, a span not pending already is dropped.
      if (this.pending.size < this.maxPending) this.pending.add(record);
      else if (!this.pending.has(record)) {
        this.dropped += 1;
        continue;
      }
      // Summaries count a span once, at its end (an annotation adds no span).
      if (!atEnd[i]) continue;
      const summary = this.summarizer.add(record);
      if (summary) {
        this.summaries.set(summary.trace_id, summary);
        this.ended.add(summary.trace_id);
        evictOldest(this.ended, 10_000);
      }
    }
  }

  private schedule(delay: number): void {
    if (this.timer && delay > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.writing = this.writing.then(() => this.write(false));
    }, delay);
    this.timer.unref?.();
  }

  /** Writes what is pending now; resolves when it (and earlier writes) are in the store. */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.write(true));
    return this.writing;
  }

  /** `all`: every pending span; else those of ended traces and those held longer than `holdMs`. */
  private async write(all: boolean): Promise<void> {
    try {
      this.absorb();
    } catch (error) {
      // Bookkeeping never breaks the chain of writes.
      this.warn('summarizing', error);
    }
    if (this.pending.size === 0 && this.summaries.size === 0) return;
    let spans: StoredSpan[];
    if (all) {
      spans = [...this.pending];
      this.pending = new Set();
    } else {
      spans = [];
      const heldFrom = (Date.now() - this.holdMs) * 1e6;
      for (const span of this.pending)
        if (this.ended.has(span.trace_id) || span.end_time <= heldFrom) {
          spans.push(span);
          this.pending.delete(span);
        }
    }
    this.held = this.pending.size;
    const traces = [...this.summaries.values()];
    this.summaries = new Map();
    let written = false;
    try {
      await this.store.writeSpans(spans, traces);
      written = true;
    } catch (error) {
      this.warn('writing', error);
      // Back in the queue for the next batch, within the bound (a span annotated meanwhile is the
      // same record, already back in the queue).
      for (const span of spans)
        if (!this.pending.has(span) && this.pending.size < this.maxPending) this.pending.add(span);
      for (const trace of traces)
        if (!this.summaries.has(trace.trace_id)) this.summaries.set(trace.trace_id, trace);
      if (!this.closed) this.schedule(Math.max(this.flushIntervalMs, 1000));
    }
    // Each summary's trace went out whole: the routes read it from the store now.
    if (written) this.source.forgetWritten(traces.map((trace) => trace.trace_id));
    if (this.dropped > 0) {
      this.logger.warn(`Trace store: ${this.dropped} spans dropped while writes were behind.`);
      this.dropped = 0;
    }
    // Held spans go out with their trace's end, or after holdMs at the latest.
    if (this.pending.size > 0 && !this.closed) this.schedule(this.flushIntervalMs);
  }

  private warn(what: string, error: unknown): void {
    this.logger.warn(
      `Trace store: ${what} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }

  /** Stops listening, writes what is pending, stops the timers. */
  async close(): Promise<void> {
    if (this.closed) return this.writing;
    this.unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    if (this.pruner) clearInterval(this.pruner);
    await this.flush();
    this.closed = true;
  }
}
