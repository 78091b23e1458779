import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  type AfterModelArgs,
  type AfterToolArgs,
  type BeforeModelArgs,
  type BeforeToolArgs,
  type Content,
  describeError,
  type Event,
  errorCodeOf,
  type ModelErrorArgs,
  type Plugin,
  type RunHookArgs,
  type ToolErrorArgs,
} from '@adk/core';

/** The `type` of each JSON Lines record the debug logger writes. */
export type DebugRecordType =
  | 'user_message'
  | 'run_start'
  | 'model_request'
  | 'model_response'
  | 'model_error'
  | 'tool_call'
  | 'tool_result'
  | 'tool_error'
  | 'event'
  | 'final_state';

export interface DebugRecord {
  type: DebugRecordType;
  /** Milliseconds since the epoch. */
  timestamp: number;
  invocationId: string;
  appName: string;
  userId: string;
  sessionId: string;
  [field: string]: unknown;
}

export interface DebugLoggingPluginOptions {
  /** File to append JSON Lines to (created, with its folder, when missing). */
  path: string;
  /** Default `'debug_logging'`. */
  name?: string;
  /** Also write partial (streaming) events (default false). */
  includePartialEvents?: boolean;
  /** Replace base64 file data by its length (default false: requests are written complete). */
  redactInlineData?: boolean;
  /** A failed write never fails the run; it is reported here (default `console.error`). */
  onWriteError?: (error: unknown) => void;
  /** For tests (default `Date.now`). */
  now?: () => number;
}

interface Scope {
  invocationId: string;
  appName: string;
  userId: string;
  session: { id: string };
}

/**
 * Writes everything that happens in an invocation — the user message, complete model requests and
 * responses, tool calls, every event and the final state — to a JSON Lines file, one record a
 * line. Writes are queued in order; `afterRun` and `close` wait for them.
 */
export class DebugLoggingPlugin implements Plugin {
  readonly name: string;
  readonly path: string;
  private readonly options: DebugLoggingPluginOptions;
  private readonly now: () => number;
  private queue: Promise<void> = Promise.resolve();
  private folderReady: Promise<unknown> | undefined;

  constructor(options: DebugLoggingPluginOptions) {
    this.name = options.name ?? 'debug_logging';
    this.path = options.path;
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  /** Resolves when every record written so far is on disk. */
  flush(): Promise<void> {
    return this.queue;
  }

  close(): Promise<void> {
    return this.flush();
  }

  private write(type: DebugRecordType, scope: Scope, fields: Record<string, unknown>): void {
    const record: DebugRecord = {
      type,
      timestamp: this.now(),
      invocationId: scope.invocationId,
      appName: scope.appName,
      userId: scope.userId,
      sessionId: scope.session.id,
      ...fields,
    };
    // Serialize now, so later mutations of requests and events do not change what is written.
    const line = `${this.serialize(record)}\n`;
    this.folderReady ??= mkdir(dirname(this.path), { recursive: true });
    this.queue = this.queue
      .then(() => this.folderReady)
      .then(() => appendFile(this.path, line, 'utf8'))
      .catch((error: unknown) => {
        this.folderReady = undefined;
        (this.options.onWriteError ?? ((e) => console.error(`DebugLoggingPlugin: ${describeError(e)}`)))(
          error,
        );
      });
  }

  private serialize(record: DebugRecord): string {
    const redact = this.options.redactInlineData ?? false;
    const seen = new WeakSet<object>();
    return JSON.stringify(record, (key, value: unknown) => {
      if (typeof value === 'bigint') return value.toString();
      if (value instanceof Error)
        return { name: value.name, code: errorCodeOf(value), message: value.message };
      if (typeof value === 'object' && value !== null) {
        if (seen.has(value)) return '[circular]';
        seen.add(value);
      }
      if (redact && key === 'data' && typeof value === 'string') return `<${value.length} base64 chars>`;
      return value;
    });
  }

  onUserMessage({ context, message }: RunHookArgs & { message: Content }): undefined {
    this.write('user_message', context, { message });
    return undefined;
  }

  beforeRun({ context }: RunHookArgs): undefined {
    this.write('run_start', context, { agent: context.agent.name, runConfig: context.runConfig });
    return undefined;
  }

  async afterRun({ context }: RunHookArgs): Promise<void> {
    this.write('final_state', context, {
      state: context.session.state,
      eventCount: context.session.events.length,
    });
    await this.flush();
  }

  onEvent({ context, event }: RunHookArgs & { event: Event }): undefined {
    if (event.partial && !this.options.includePartialEvents) return undefined;
    this.write('event', context, { event });
    return undefined;
  }

  beforeModel({ context, request }: BeforeModelArgs): undefined {
    this.write('model_request', context.invocationContext, { agent: context.agentName, request });
    return undefined;
  }

  afterModel({ context, request, response }: AfterModelArgs): undefined {
    this.write('model_response', context.invocationContext, {
      agent: context.agentName,
      model: request.model,
      response,
    });
    return undefined;
  }

  onModelError({ context, request, error }: ModelErrorArgs): undefined {
    this.write('model_error', context.invocationContext, {
      agent: context.agentName,
      model: request.model,
      error: { code: errorCodeOf(error), message: describeError(error) },
    });
    return undefined;
  }

  beforeTool({ tool, args, context }: BeforeToolArgs): undefined {
    this.write('tool_call', context.invocationContext, {
      agent: context.agentName,
      tool: tool.name,
      callId: context.functionCallId,
      args,
    });
    return undefined;
  }

  afterTool({ tool, result, context }: AfterToolArgs): undefined {
    this.write('tool_result', context.invocationContext, {
      agent: context.agentName,
      tool: tool.name,
      callId: context.functionCallId,
      result,
    });
    return undefined;
  }

  onToolError({ tool, error, context }: ToolErrorArgs): undefined {
    this.write('tool_error', context.invocationContext, {
      agent: context.agentName,
      tool: tool.name,
      callId: context.functionCallId,
      error: { code: errorCodeOf(error), message: describeError(error) },
    });
    return undefined;
  }
}
