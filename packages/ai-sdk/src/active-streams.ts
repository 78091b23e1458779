/**
 * The chat streams running in this process, by session: what each has sent so far and who waits
 * for more. A resumed client replays a stream from its `start` chunk and then follows it live.
 */
export class ActiveStream {
  /** SSE frames sent so far (the first is `start`). */
  readonly frames: string[] = [];
  /** Frames a replay sends right after `start`: the earlier part of a continued message. */
  prefix: string[] = [];
  done = false;
  private readonly waiters = new Set<() => void>();

  constructor(readonly runId: string | undefined) {}

  push(frame: string): void {
    this.frames.push(frame);
    this.wake();
  }

  end(): void {
    this.done = true;
    this.wake();
  }

  private wake(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
  }

  /** Resolves when a frame is added or the stream ends (or the signal aborts). */
  changed(signal?: AbortSignal): Promise<void> {
    if (this.done || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        signal?.removeEventListener('abort', wake);
        this.waiters.delete(wake);
        resolve();
      };
      this.waiters.add(wake);
      signal?.addEventListener('abort', wake, { once: true });
    });
  }

  /**
   * The frames as a byte stream, from the first (`replay`: with the prefix after `start`);
   * `onCancel` runs when the reader goes away before the end; `onEnd` once when the stream closes or
   * is cancelled.
   */
  readable(
    options: { replay?: boolean; onCancel?: () => void; onEnd?: () => void } = {},
  ): ReadableStream<Uint8Array> {
    const encoder = new TextEncoder();
    const gone = new AbortController();
    const frames = (): string[] =>
      options.replay && this.prefix.length > 0
        ? [...this.frames.slice(0, 1), ...this.prefix, ...this.frames.slice(1)]
        : this.frames;
    let index = 0;
    // The prefix is fixed before the first frame, so the list only grows at its end.
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        for (;;) {
          const list = frames();
          if (index < list.length) {
            controller.enqueue(encoder.encode(list.slice(index).join('')));
            index = list.length;
            return;
          }
          if (this.done) {
            controller.close();
            options.onEnd?.();
            return;
          }
          await this.changed(gone.signal);
          if (gone.signal.aborted) return;
        }
      },
      cancel: () => {
        gone.abort();
        options.onCancel?.();
        options.onEnd?.();
      },
    });
  }
}

/** Active streams by `userId` and session id. */
export class ActiveStreams {
  private readonly streams = new Map<string, ActiveStream>();

  private static key(userId: string, sessionId: string): string {
    return `${userId}\u0000${sessionId}`;
  }

  get(userId: string, sessionId: string): ActiveStream | undefined {
    const stream = this.streams.get(ActiveStreams.key(userId, sessionId));
    return stream && !stream.done ? stream : undefined;
  }

  set(userId: string, sessionId: string, stream: ActiveStream): void {
    const key = ActiveStreams.key(userId, sessionId);
    this.streams.set(key, stream);
  }

  /** Removes the stream once it has ended (if it is still the session's). */
  release(userId: string, sessionId: string, stream: ActiveStream): void {
    const key = ActiveStreams.key(userId, sessionId);
    if (this.streams.get(key) === stream) this.streams.delete(key);
  }
}
