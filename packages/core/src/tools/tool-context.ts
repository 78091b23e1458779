import { CallbackContext } from '../agents/callback-context.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import { ConfigError } from '../errors/errors.js';
import type { EventActions, ToolConfirmation } from '../events/event.js';
import type { SearchMemoryResult } from '../memory/memory-service.js';

/**
 * Context of one tool call. State writes, artifact saves, transfers and escalations are recorded in
 * `actions` and land in the function-response event (and so in the session).
 */
export class ToolContext extends CallbackContext {
  constructor(
    invocationContext: InvocationContext,
    readonly functionCallId: string,
    actions?: EventActions,
    /** The user's answer when this call was confirmed or rejected (see requestConfirmation). */
    readonly toolConfirmation?: ToolConfirmation,
  ) {
    super(invocationContext, actions);
  }

  async searchMemory(query: string, limit?: number): Promise<SearchMemoryResult> {
    const ctx = this.invocationContext;
    if (!ctx.memoryService) throw new ConfigError('No memoryService was given to the Runner');
    return ctx.memoryService.searchMemory({
      appName: ctx.appName,
      userId: ctx.userId,
      query,
      ...(limit === undefined ? {} : { limit }),
    });
  }

  /** Ask the user to confirm this call; the tool's result is then ignored and the run pauses. */
  requestConfirmation(hint?: string, payload?: unknown): void {
    this.actions.requestedToolConfirmations ??= {};
    this.actions.requestedToolConfirmations[this.functionCallId] = {
      confirmed: false,
      ...(hint === undefined ? {} : { hint }),
      ...(payload === undefined ? {} : { payload }),
    };
    this.actions.skipSummarization = true;
  }

  transferToAgent(agentName: string): void {
    this.actions.transferToAgent = agentName;
  }

  escalate(): void {
    this.actions.escalate = true;
  }

  skipSummarization(): void {
    this.actions.skipSummarization = true;
  }
}
