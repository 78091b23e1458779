import { ValidationError } from '../errors/errors.js';
import { BaseNode, type BaseNodeOptions } from './base-node.js';
import type { NodeContext } from './node-context.js';
import { ChildPaused } from './node-runner.js';

export interface ParallelWorkerOptions extends Partial<BaseNodeOptions> {
  /** How many items run at once (default: all). */
  maxParallelWorkers?: number;
}

/**
 * Runs its inner node once per item of its input list, concurrently, and outputs the results in
 * the order of the items. Item runs are children numbered 1..N, so a resumed run does not repeat
 * the ones that finished.
 */
export class ParallelWorker extends BaseNode {
  readonly inner: BaseNode;
  readonly maxParallelWorkers: number | undefined;

  constructor(inner: BaseNode, options: ParallelWorkerOptions = {}) {
    const { maxParallelWorkers, ...rest } = options;
    super({ description: inner.description, ...rest, name: rest.name ?? inner.name });
    if (
      maxParallelWorkers !== undefined &&
      !(Number.isInteger(maxParallelWorkers) && maxParallelWorkers > 0)
    ) {
      throw new ValidationError(`Node "${this.name}": maxParallelWorkers must be a positive integer`);
    }
    this.inner = inner;
    this.maxParallelWorkers = maxParallelWorkers;
  }

  async *runImpl(ctx: NodeContext, input: unknown): AsyncGenerator<unknown, void, undefined> {
    if (!Array.isArray(input)) {
      throw new ValidationError(
        `Parallel worker "${this.name}" needs a list as its input, got ${typeof input}`,
      );
    }
    const results: unknown[] = new Array(input.length);
    const limit = this.maxParallelWorkers ?? input.length;
    let next = 0;
    const paused: string[] = [];
    let failure: { error: unknown } | undefined;
    const worker = async () => {
      while (next < input.length && !failure) {
        const index = next++;
        try {
          const result = await ctx.runNode(this.inner, input[index], { runId: String(index + 1) });
          results[index] = result.output;
        } catch (error) {
          if (error instanceof ChildPaused) paused.push(...error.interruptIds);
          else failure ??= { error };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, input.length) }, worker));
    if (failure) throw failure.error;
    if (paused.length > 0) throw new ChildPaused(paused);
    yield results;
  }
}
