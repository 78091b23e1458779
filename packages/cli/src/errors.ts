import { AdkError, type AdkErrorOptions } from '@adk/core';

/**
 * An agent module could not be found, failed to load, or exports no agent; the message names the
 * file. Its code, APP_LOAD, is the one `@adk/server` answers with the message (not a bare 500).
 */
export class AgentLoadError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('APP_LOAD', message, options);
  }
}

/** A command was used wrongly (bad flag value, missing file). Printed without a stack trace. */
export class CliUsageError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('CLI_USAGE', message, options);
  }
}
