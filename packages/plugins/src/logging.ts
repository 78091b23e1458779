import {
  type AfterModelArgs,
  type AfterToolArgs,
  type AgentHookArgs,
  type BeforeModelArgs,
  type BeforeToolArgs,
  type Content,
  describeError,
  type Event,
  type ModelErrorArgs,
  type Plugin,
  type RunHookArgs,
  type ToolErrorArgs,
} from '@adk/core';
import { clip, safeJson, summarizeContent, summarizeResponse } from './format.js';

/** Where log lines go. `console` fits; so does a pino/winston logger's `info`. */
export interface PluginLogger {
  info(line: string): void;
}

export interface LoggingPluginOptions {
  /** Default: `console`. */
  logger?: PluginLogger;
  /** Default `'logging'`. */
  name?: string;
  /** Prefix of every line (default `[adk]`). */
  prefix?: string;
  /** Longest tool-argument / result excerpt, in characters (default 200). */
  maxValueLength?: number;
}

/** One concise line per hook, to a pluggable logger. Observes only: never changes the run. */
export class LoggingPlugin implements Plugin {
  readonly name: string;
  private readonly logger: PluginLogger;
  private readonly prefix: string;
  private readonly max: number;

  constructor(options: LoggingPluginOptions = {}) {
    this.name = options.name ?? 'logging';
    this.logger = options.logger ?? console;
    this.prefix = options.prefix ?? '[adk]';
    this.max = options.maxValueLength ?? 200;
  }

  private log(hook: string, invocationId: string, details: string): void {
    this.logger.info(`${this.prefix} ${hook} inv=${invocationId} ${details}`.trimEnd());
  }

  private value(value: unknown): string {
    return clip(safeJson(value), this.max);
  }

  onUserMessage({ context, message }: RunHookArgs & { message: Content }): undefined {
    this.log(
      'onUserMessage',
      context.invocationId,
      `user=${context.userId} session=${context.session.id} message=${summarizeContent(message)}`,
    );
    return undefined;
  }

  beforeRun({ context }: RunHookArgs): undefined {
    this.log(
      'beforeRun',
      context.invocationId,
      `app=${context.appName} user=${context.userId} session=${context.session.id} agent=${context.agent.name}`,
    );
    return undefined;
  }

  afterRun({ context }: RunHookArgs): void {
    this.log('afterRun', context.invocationId, `session=${context.session.id}`);
  }

  onEvent({ context, event }: RunHookArgs & { event: Event }): undefined {
    if (event.partial) return undefined;
    const extra: string[] = [];
    const delta = Object.keys(event.actions.stateDelta);
    if (delta.length > 0) extra.push(`state=${delta.join(',')}`);
    const artifacts = Object.keys(event.actions.artifactDelta);
    if (artifacts.length > 0) extra.push(`artifacts=${artifacts.join(',')}`);
    if (event.actions.transferToAgent) extra.push(`transfer=${event.actions.transferToAgent}`);
    if (event.errorCode) extra.push(`error=${event.errorCode}: ${clip(event.errorMessage ?? '', 120)}`);
    this.log(
      'onEvent',
      context.invocationId,
      [`id=${event.id}`, `author=${event.author}`, summarizeContent(event.content), ...extra].join(' '),
    );
    return undefined;
  }

  beforeAgent({ agent, context }: AgentHookArgs): undefined {
    this.log('beforeAgent', context.invocationId, `agent=${agent.name}`);
    return undefined;
  }

  afterAgent({ agent, context }: AgentHookArgs): undefined {
    this.log('afterAgent', context.invocationId, `agent=${agent.name}`);
    return undefined;
  }

  beforeModel({ context, request }: BeforeModelArgs): undefined {
    this.log(
      'beforeModel',
      context.invocationId,
      `agent=${context.agentName} model=${request.model || '?'} contents=${request.contents.length} tools=${request.tools?.length ?? 0}`,
    );
    return undefined;
  }

  afterModel({ context, request, response }: AfterModelArgs): undefined {
    this.log(
      'afterModel',
      context.invocationId,
      `agent=${context.agentName} model=${request.model} ${summarizeResponse(response)}`,
    );
    return undefined;
  }

  onModelError({ context, request, error }: ModelErrorArgs): undefined {
    this.log(
      'onModelError',
      context.invocationId,
      `agent=${context.agentName} model=${request.model} error=${clip(describeError(error), this.max)}`,
    );
    return undefined;
  }

  beforeTool({ tool, args, context }: BeforeToolArgs): undefined {
    this.log(
      'beforeTool',
      context.invocationId,
      `tool=${tool.name} call=${context.functionCallId} args=${this.value(args)}`,
    );
    return undefined;
  }

  afterTool({ tool, result, context }: AfterToolArgs): undefined {
    this.log(
      'afterTool',
      context.invocationId,
      `tool=${tool.name} call=${context.functionCallId} result=${this.value(result)}`,
    );
    return undefined;
  }

  onToolError({ tool, error, context }: ToolErrorArgs): undefined {
    this.log(
      'onToolError',
      context.invocationId,
      `tool=${tool.name} call=${context.functionCallId} error=${clip(describeError(error), this.max)}`,
    );
    return undefined;
  }
}
