import type { ReadonlyContext } from '../agents/callback-context.js';
import type { FunctionResponseScheduling } from '../events/content.js';
import type { FunctionDeclaration, LlmRequest } from '../models/llm.js';
import type { ToolContext } from './tool-context.js';

export interface BaseToolOptions {
  name: string;
  description: string;
  /** The call starts work that finishes later; the invocation pauses until its response arrives. */
  isLongRunning?: boolean;
  /**
   * Running the call twice does no harm (a read, an upsert). A call that a crashed process started
   * and never answered is run again on recovery only when its tool is idempotent; otherwise the
   * model gets an error response saying it was interrupted (at-most-once).
   */
  idempotent?: boolean;
  /**
   * Live sessions: 'NON_BLOCKING' declares the tool so the model goes on talking while it runs
   * (default 'BLOCKING'). Every live call runs without holding up the connection either way.
   */
  behavior?: 'BLOCKING' | 'NON_BLOCKING';
  /**
   * Live sessions: when the model takes up this tool's responses — 'WHEN_IDLE' (after its current
   * turn), 'SILENT' (no reply of its own), 'INTERRUPT' (at once). Set on the responses of
   * non-blocking and streaming calls (default 'WHEN_IDLE' for those).
   */
  scheduling?: FunctionResponseScheduling;
}

/** A tool the model can call. Subclass it, or use FunctionTool for a typed function. */
export abstract class BaseTool {
  readonly name: string;
  readonly description: string;
  readonly isLongRunning: boolean;
  readonly idempotent: boolean;
  readonly behavior: 'BLOCKING' | 'NON_BLOCKING' | undefined;
  readonly scheduling: FunctionResponseScheduling | undefined;

  constructor(options: BaseToolOptions) {
    this.name = options.name;
    this.description = options.description;
    this.isLongRunning = options.isLongRunning ?? false;
    this.idempotent = options.idempotent ?? false;
    this.behavior = options.behavior;
    this.scheduling = options.scheduling;
  }

  /** The declaration sent to the model, or undefined for tools that only act on the request. */
  abstract declaration(): FunctionDeclaration | undefined;

  /**
   * Runs the call. Returns the response object for the model (non-objects are wrapped as
   * `{ result }`); undefined from a long-running tool means "no response yet". An async iterable
   * makes a streaming tool: in a live session each value reaches the model as it comes (until the
   * iterable ends, the call is cancelled or `stop_streaming` stops it); elsewhere the last value is
   * the response.
   */
  abstract run(args: Record<string, unknown>, context: ToolContext): Promise<unknown>;

  /** Whether the user must confirm this call before it runs. */
  requiresConfirmation(_args: Record<string, unknown>, _context: ToolContext): boolean | Promise<boolean> {
    return false;
  }

  /** Lets a tool adjust the outgoing request (add contents, instructions). */
  processLlmRequest?(context: ReadonlyContext, request: LlmRequest): void | Promise<void>;
}
