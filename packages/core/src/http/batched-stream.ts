/**
 * A stream of batches (one array per network chunk) read as a stream of items, without the cost of
 * an async generator step per item: an item already in hand is handed out with a resolved promise,
 * and the batches' generator is resumed only when they run out. A provider's hot loop yields one
 * array of responses per chunk and returns `flattenBatches(…)` as its `generate`: the same items in
 * the same order, one resumption per chunk instead of one per vendor event.
 *
 * It behaves as an async generator does for `for await`, `return()` (an early `break` or a
 * cancelled run closes the batches' generator, so its `finally` blocks run) and `throw()`. Calls to
 * `next()` made while a batch is being read wait for it, in order.
 */
export function flattenBatches<T>(
  batches: AsyncGenerator<readonly T[], void, undefined>,
): AsyncGenerator<T, void, undefined> {
  return new FlattenedBatches(batches);
}

class FlattenedBatches<T> implements AsyncGenerator<T, void, undefined> {
  private buffer: readonly T[] = [];
  private at = 0;
  private done = false;
  /** The read of the next batch in progress, which later `next()` calls wait for. */
  private reading: Promise<unknown> | undefined;

  constructor(private readonly batches: AsyncGenerator<readonly T[], void, undefined>) {}

  next(): Promise<IteratorResult<T, void>> {
    if (this.at < this.buffer.length) {
      const value = this.buffer[this.at++] as T;
      return Promise.resolve({ value, done: false });
    }
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    if (this.reading) return this.reading.then(() => this.next());
    const read = this.read();
    this.reading = read;
    return read.finally(() => {
      if (this.reading === read) this.reading = undefined;
    });
  }

  private async read(): Promise<IteratorResult<T, void>> {
    for (;;) {
      let step: IteratorResult<readonly T[], void>;
      try {
        step = await this.batches.next();
      } catch (error) {
        this.done = true;
        throw error;
      }
      if (step.done) {
        this.done = true;
        return { value: undefined, done: true };
      }
      if (step.value.length === 0) continue;
      this.buffer = step.value;
      this.at = 1;
      return { value: step.value[0] as T, done: false };
    }
  }

  async return(value?: void | PromiseLike<void>): Promise<IteratorResult<T, void>> {
    this.finish();
    await this.reading?.catch(() => undefined);
    await this.batches.return(undefined);
    return { value: (await value) as undefined, done: true };
  }

  async throw(error: unknown): Promise<IteratorResult<T, void>> {
    this.finish();
    await this.reading?.catch(() => undefined);
    await this.batches.throw(error);
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }

  private finish(): void {
    this.done = true;
    this.buffer = [];
    this.at = 0;
  }
}
