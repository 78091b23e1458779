import type { ReadonlyContext } from '../agents/callback-context.js';
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
}

/** A tool the model can call. Subclass it, or use FunctionTool for a typed function. */
export abstract class BaseTool {
  readonly name: string;
  readonly description: string;
  readonly isLongRunning: boolean;
  readonly idempotent: boolean;

  constructor(options: BaseToolOptions) {
    this.name = options.name;
    this.description = options.description;
    this.isLongRunning = options.isLongRunning ?? false;
    this.idempotent = options.idempotent ?? false;
  }

  /** The declaration sent to the model, or undefined for tools that only act on the request. */
  abstract declaration(): FunctionDeclaration | undefined;

  /**
   * Runs the call. Returns the response object for the model (non-objects are wrapped as
   * `{ result }`); undefined from a long-running tool means "no response yet".
   */
  abstract run(args: Record<string, unknown>, context: ToolContext): Promise<unknown>;

  /** Whether the user must confirm this call before it runs. */
  requiresConfirmation(_args: Record<string, unknown>, _context: ToolContext): boolean | Promise<boolean> {
    return false;
  }

  /** Lets a tool adjust the outgoing request (add contents, instructions). */
  processLlmRequest?(context: ReadonlyContext, request: LlmRequest): void | Promise<void>;
}
