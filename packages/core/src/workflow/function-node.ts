import type { Event } from '../events/event.js';
import { BaseNode, type BaseNodeOptions } from './base-node.js';
import type { NodeContext } from './node-context.js';
import type { RequestInput } from './request-input.js';

type Item<T> = T | Event | RequestInput | null | undefined | void;

/** A function node: `(ctx, input) => value | Event | RequestInput`, sync, async or a generator. */
export type FunctionNodeHandler<I = unknown, O = unknown> = (
  ctx: NodeContext,
  input: I,
) =>
  | Item<O>
  | Promise<Item<O>>
  | Generator<Item<O>, Item<O>, undefined>
  | AsyncGenerator<Item<O>, Item<O>, undefined>;

export type FunctionNodeOptions = Partial<Omit<BaseNodeOptions, 'name'>>;
/** @google/adk's name for {@link FunctionNodeOptions}. */
export type FunctionNodeConfig = FunctionNodeOptions;

function isIterator(value: unknown): value is AsyncIterator<unknown> | Iterator<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { next?: unknown }).next === 'function' &&
    (Symbol.asyncIterator in value || Symbol.iterator in value)
  );
}

/** A node around a plain function; its return value (or yielded values) is the node's output. */
export class FunctionNode<I = unknown, O = unknown> extends BaseNode {
  readonly handler: FunctionNodeHandler<I, O>;

  constructor(name: string, handler: FunctionNodeHandler<I, O>, options: FunctionNodeOptions = {}) {
    super({ ...options, name });
    this.handler = handler;
  }

  async *runImpl(ctx: NodeContext, input: unknown): AsyncGenerator<unknown, void, undefined> {
    const result = this.handler(ctx, input as I);
    if (isIterator(result)) {
      const it = result as AsyncIterator<unknown>;
      for (;;) {
        const step = await it.next();
        if (step.done) {
          if (step.value !== undefined && step.value !== null) yield step.value;
          return;
        }
        if (step.value !== undefined && step.value !== null) yield step.value;
      }
    }
    const value = await result;
    if (value !== undefined && value !== null) yield value;
  }
}
