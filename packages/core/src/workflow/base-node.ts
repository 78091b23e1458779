import { ConfigError } from '../errors/errors.js';
import type { NodeContext } from './node-context.js';
import { type PreparedRetry, prepareRetry, type RetryConfig } from './retry-config.js';

const NODE_BRAND = Symbol.for('@adk/core.BaseNode');
const NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

export interface BaseNodeOptions {
  /** Unique in its workflow; letters, digits, `_` and `-`. */
  name: string;
  description?: string;
  /** On resume, run the node again with its original input and `ctx.resumeInputs` (default false: its reply is its output). */
  rerunOnResume?: boolean;
  retryConfig?: RetryConfig;
  /** Seconds one attempt may take before it fails with `NodeTimeoutError` (ADK's name and unit). */
  timeout?: number;
  /** The same in milliseconds; wins over `timeout`. */
  timeoutMs?: number;
}

/** @google/adk's name for {@link BaseNodeOptions}. */
export type BaseNodeConfig = BaseNodeOptions;

/**
 * A step of a workflow. `runImpl(ctx, input)` yields events (committed as they come), a
 * `RequestInput` (pauses the node), or a value (the node's output; at most one). Function nodes,
 * tools, agents and nested workflows are all turned into nodes; subclass this for custom ones.
 */
export abstract class BaseNode {
  readonly [NODE_BRAND] = true;
  readonly name: string;
  readonly description: string;
  readonly rerunOnResume: boolean;
  readonly retryConfig: RetryConfig | undefined;
  /** Seconds (ADK's unit); `timeoutMs` is the same in milliseconds. */
  readonly timeout: number | undefined;
  readonly timeoutMs: number | undefined;
  /** @internal the retry settings with defaults applied */
  readonly retry: PreparedRetry;

  constructor(options: BaseNodeOptions) {
    if (!NAME.test(options.name)) {
      throw new ConfigError(
        `Invalid node name "${options.name}": use letters, digits, "_" and "-", not starting with a digit`,
      );
    }
    if (options.timeout !== undefined && !(options.timeout > 0)) {
      throw new ConfigError(`Node "${options.name}": timeout must be a positive number of seconds`);
    }
    if (options.timeoutMs !== undefined && !(options.timeoutMs > 0)) {
      throw new ConfigError(`Node "${options.name}": timeoutMs must be a positive number of milliseconds`);
    }
    this.name = options.name;
    this.description = options.description ?? '';
    this.rerunOnResume = options.rerunOnResume ?? false;
    this.retryConfig = options.retryConfig;
    this.timeout = options.timeoutMs !== undefined ? options.timeoutMs / 1000 : options.timeout;
    this.timeoutMs = this.timeout === undefined ? undefined : this.timeout * 1000;
    this.retry = prepareRetry(options.retryConfig);
  }

  /** A JoinNode waits for every predecessor before it runs. */
  get requiresAllPredecessors(): boolean {
    return false;
  }

  abstract runImpl(ctx: NodeContext, input: unknown): AsyncGenerator<unknown, void, undefined>;
}

export function isBaseNode(value: unknown): value is BaseNode {
  return (
    typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[NODE_BRAND] === true
  );
}

class StartNode extends BaseNode {
  async *runImpl(): AsyncGenerator<unknown, void, undefined> {}
}

/** Where every workflow begins; its successors get the user's message text. The string `'START'` works too. */
export const START: BaseNode = /* @__PURE__ */ new StartNode({ name: '__START__' });
