import { describeError } from '@adk/core';

/**
 * Where the server's own lines go. `info` gets request logs (when enabled), `warn` degraded
 * set-ups (for example artifacts kept in memory), `error` unexpected failures behind a 500.
 * A pino or winston logger fits; so does `console`.
 */
export interface AdkServerLogger {
  info(line: string): void;
  warn(line: string): void;
  error(line: string): void;
}

/** The default: warnings and errors to stderr with an `[adk-server]` prefix, info dropped. */
export function defaultLogger(): AdkServerLogger {
  return {
    info: () => undefined,
    warn: (line) => console.warn(`[adk-server] ${line}`),
    error: (line) => console.error(`[adk-server] ${line}`),
  };
}

/** One line for an unexpected error, with its stack's first frame when there is one. */
export function errorLine(context: string, error: unknown): string {
  const stack = error instanceof Error ? error.stack?.split('\n').slice(0, 2).join(' | ') : undefined;
  return `${context}: ${stack ?? describeError(error)}`;
}
