import {
  type AfterToolArgs,
  type BaseTool,
  describeError,
  type Plugin,
  type RunHookArgs,
  ToolError,
  type ToolErrorArgs,
} from '@adk/core';
import { evictOldest } from '@adk/core/internal';

/** What the model receives instead of a bare error. */
export interface ReflectionResponse extends Record<string, unknown> {
  error: string;
  reflection_guidance: string;
  /** Failures of this tool so far (1 on the first). */
  retry_count: number;
  max_retries: number;
  /** Present once the limit is reached: the model should stop calling the tool. */
  retries_exhausted?: true;
}

export interface ReflectionInfo {
  tool: BaseTool;
  args: Record<string, unknown>;
  error: string;
  retryCount: number;
  maxRetries: number;
}

export interface ReflectAndRetryToolPluginOptions {
  /** Default `'reflect_and_retry_tool'`. */
  name?: string;
  /** Retries allowed per tool after a failure (default 3). */
  maxRetries?: number;
  /**
   * Where consecutive failures are counted: per invocation (default; concurrent runs do not
   * affect each other) or across the whole process.
   */
  scope?: 'invocation' | 'global';
  /**
   * After the limit: `'respond'` (default) sends a final response telling the model to stop
   * retrying; `'default'` lets core send its plain error response; `'fail'` ends the run with an
   * error event.
   */
  whenExhausted?: 'respond' | 'default' | 'fail';
  /** Treat a returned result as a failure too (e.g. `{ status: 'error' }`): return its message. */
  errorInResult?: (result: Record<string, unknown>, tool: BaseTool) => string | undefined;
  /** Custom guidance text. */
  guidance?: (info: ReflectionInfo) => string;
  /** Invocations tracked at once before the oldest are forgotten (default 10 000). */
  maxTrackedInvocations?: number;
}

function defaultGuidance({ tool, error, retryCount, maxRetries }: ReflectionInfo): string {
  if (retryCount > maxRetries) {
    return `The tool "${tool.name}" has failed ${retryCount} times in a row, which is more than the ${maxRetries} retries allowed. Do not call it again for this request. Tell the user what went wrong (last error: ${error}) or solve the task another way.`;
  }
  return `The call to "${tool.name}" failed: ${error}. Before retrying, reflect on the cause: is the tool the right one, are all required arguments present with the right names, types and formats, are the values plausible? Then call it again with corrected arguments, or choose another approach. Retry ${retryCount} of ${maxRetries}.`;
}

/**
 * On a tool error, gives the model structured guidance and lets it retry, up to a limit of
 * consecutive failures per tool (a success resets the count). Counters are per invocation (keyed by
 * invocation id, so concurrent runs never share one) or global.
 */
export class ReflectAndRetryToolPlugin implements Plugin {
  readonly name: string;
  readonly maxRetries: number;
  readonly scope: 'invocation' | 'global';
  private readonly options: ReflectAndRetryToolPluginOptions;
  /** invocation id (or '' for global) → tool name → consecutive failures */
  private readonly counters = new Map<string, Map<string, number>>();

  constructor(options: ReflectAndRetryToolPluginOptions = {}) {
    this.name = options.name ?? 'reflect_and_retry_tool';
    this.maxRetries = Math.max(0, options.maxRetries ?? 3);
    this.scope = options.scope ?? 'invocation';
    this.options = options;
  }

  /** Consecutive failures of `tool` counted so far (for an invocation, or globally). */
  failureCount(tool: string, invocationId?: string): number {
    return this.counters.get(this.key(invocationId ?? ''))?.get(tool) ?? 0;
  }

  private key(invocationId: string): string {
    return this.scope === 'global' ? '' : invocationId;
  }

  private countersFor(invocationId: string): Map<string, number> {
    const key = this.key(invocationId);
    let map = this.counters.get(key);
    if (!map) {
      map = new Map();
      this.counters.set(key, map);
      const max = this.options.maxTrackedInvocations ?? 10_000;
      // A run that failed before afterRun leaves its counters behind; forget the oldest.
      evictOldest(this.counters, Math.max(1, max));
    }
    return map;
  }

  /** Counts a failure and returns what the model gets (undefined: core's default error response). */
  private failure(
    tool: BaseTool,
    args: Record<string, unknown>,
    invocationId: string,
    message: string,
  ): ReflectionResponse | undefined {
    // Read and write with no await in between: concurrent calls cannot lose a count.
    const counters = this.countersFor(invocationId);
    const retryCount = (counters.get(tool.name) ?? 0) + 1;
    counters.set(tool.name, retryCount);
    const exhausted = retryCount > this.maxRetries;
    if (exhausted) {
      const mode = this.options.whenExhausted ?? 'respond';
      if (mode === 'default') return undefined;
      if (mode === 'fail') {
        throw new ToolError(
          `Tool "${tool.name}" failed ${retryCount} times in a row (max ${this.maxRetries} retries): ${message}`,
          { details: { tool: tool.name, retryCount } },
        );
      }
    }
    const info: ReflectionInfo = { tool, args, error: message, retryCount, maxRetries: this.maxRetries };
    return {
      error: message,
      reflection_guidance: (this.options.guidance ?? defaultGuidance)(info),
      retry_count: retryCount,
      max_retries: this.maxRetries,
      ...(exhausted ? { retries_exhausted: true as const } : {}),
    };
  }

  onToolError({ tool, args, error, context }: ToolErrorArgs): ReflectionResponse | undefined {
    return this.failure(tool, args, context.invocationId, describeError(error));
  }

  afterTool({ tool, args, result, context }: AfterToolArgs): ReflectionResponse | undefined {
    // A recovered result (ours or another hook's) is not a success: leave the count as it is.
    if (isReflection(result)) return undefined;
    const message = this.options.errorInResult?.(result, tool);
    if (message !== undefined) return this.failure(tool, args, context.invocationId, message);
    this.counters.get(this.key(context.invocationId))?.delete(tool.name);
    return undefined;
  }

  afterRun({ context }: RunHookArgs): void {
    if (this.scope === 'invocation') this.counters.delete(context.invocationId);
  }
}

function isReflection(result: Record<string, unknown>): boolean {
  return typeof result.reflection_guidance === 'string' && typeof result.retry_count === 'number';
}
