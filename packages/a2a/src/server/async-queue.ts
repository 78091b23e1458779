/** An unbounded single-consumer queue that is also an async iterable. */
export class AsyncQueue<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  #waiter: ((r: IteratorResult<T>) => void) | undefined;
  #failWaiter: ((e: unknown) => void) | undefined;
  #ended = false;
  #error: unknown;
  #hasError = false;
  /** Called once when the consumer stops early (return/throw) or the queue ends. */
  onClose: (() => void) | undefined;

  push(item: T): void {
    if (this.#ended) return;
    if (this.#waiter) {
      const w = this.#waiter;
      this.#waiter = undefined;
      this.#failWaiter = undefined;
      w({ value: item, done: false });
    } else this.#items.push(item);
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#waiter && this.#items.length === 0) {
      const w = this.#waiter;
      this.#waiter = undefined;
      w({ value: undefined, done: true });
    }
    this.#closed();
  }

  fail(error: unknown): void {
    if (this.#ended) return;
    this.#hasError = true;
    this.#error = error;
    this.#ended = true;
    if (this.#failWaiter && this.#items.length === 0) {
      const f = this.#failWaiter;
      this.#waiter = undefined;
      this.#failWaiter = undefined;
      f(error);
    }
    this.#closed();
  }

  get ended(): boolean {
    return this.#ended;
  }

  #closed(): void {
    const cb = this.onClose;
    this.onClose = undefined;
    cb?.();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const item = this.#items.shift();
        if (item !== undefined || this.#items.length > 0)
          return Promise.resolve({ value: item as T, done: false });
        if (this.#ended) {
          if (this.#hasError) {
            this.#hasError = false;
            return Promise.reject(this.#error);
          }
          return Promise.resolve({ value: undefined, done: true });
        }
        return new Promise<IteratorResult<T>>((resolve, reject) => {
          this.#waiter = resolve;
          this.#failWaiter = reject;
        });
      },
      return: () => {
        this.#ended = true;
        this.#items.length = 0;
        this.#closed();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
