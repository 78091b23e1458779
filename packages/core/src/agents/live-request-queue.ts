import { CancelledError } from '../errors/errors.js';
import type { Content, InlineData } from '../events/content.js';

/** Marks the start of the user's activity (speech) when automatic activity detection is off. */
export type ActivityStart = Record<string, never>;
/** Marks the end of the user's activity. */
export type ActivityEnd = Record<string, never>;

/**
 * One message from the client to a live session (adk-python's `LiveRequest`): exactly one of
 * `content` (a turn: text, or function responses), `blob` (realtime media), `activityStart`,
 * `activityEnd`, or `close`.
 */
export interface LiveRequest {
  content?: Content;
  blob?: InlineData;
  activityStart?: ActivityStart;
  activityEnd?: ActivityEnd;
  close?: boolean;
}

/**
 * The client's side of a live session: a FIFO of `LiveRequest`s that `Runner.runLive` reads and
 * forwards to the model connection. Sends never block. After `close()` nothing more is queued and
 * iteration ends once the queue has drained (the close request itself is the last item `get`
 * returns).
 */
export class LiveRequestQueue implements AsyncIterable<LiveRequest> {
  private readonly items: LiveRequest[] = [];
  private head = 0;
  private readonly waiters: Array<(request: LiveRequest) => void> = [];
  private closed = false;

  /** Whether `close()` was called. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Sends a turn of content (user text, or a user turn of function responses). */
  sendContent(content: Content): void {
    this.send({ content });
  }

  /** Sends a chunk of realtime media (16 kHz PCM audio, a JPEG frame, …). */
  sendRealtime(blob: InlineData): void {
    this.send({ blob });
  }

  sendActivityStart(): void {
    this.send({ activityStart: {} });
  }

  sendActivityEnd(): void {
    this.send({ activityEnd: {} });
  }

  /** Ends the live session once the requests already queued have been sent. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.push({ close: true });
    this.closed = true;
  }

  /** Queues any request; a `close` request closes the queue. Requests after close are ignored. */
  send(request: LiveRequest): void {
    if (this.closed) return;
    if (request.close) {
      this.close();
      return;
    }
    this.push(request);
  }

  /**
   * The next request, waiting for one. Rejects with `CancelledError` when `signal` aborts; a
   * request is never lost to an aborted wait. After the close request has been returned, every
   * further call returns a close request at once.
   */
  get(signal?: AbortSignal): Promise<LiveRequest> {
    if (this.head < this.items.length) return Promise.resolve(this.shift());
    if (this.closed) return Promise.resolve({ close: true });
    if (signal?.aborted)
      return Promise.reject(new CancelledError('Waiting for a live request was cancelled'));
    return new Promise<LiveRequest>((resolve, reject) => {
      const waiter = (request: LiveRequest) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(request);
      };
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(new CancelledError('Waiting for a live request was cancelled'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Yields requests until (not including) the close request. */
  async *[Symbol.asyncIterator](): AsyncGenerator<LiveRequest, void, undefined> {
    for (;;) {
      const request = await this.get();
      if (request.close) return;
      yield request;
    }
  }

  private push(request: LiveRequest): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(request);
    else this.items.push(request);
  }

  private shift(): LiveRequest {
    const request = this.items[this.head] as LiveRequest;
    this.items[this.head] = undefined as unknown as LiveRequest;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    return request;
  }
}
