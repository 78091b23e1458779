const ADK_ERROR = Symbol.for('@adk/core.error');

/**
 * Stable, machine-readable error codes: every code an `@adk/*` package throws or writes to
 * `event.errorCode` for an error of its own. A closed union, so a `switch` over it can be exhaustive.
 */
export type AdkErrorCode =
  // core
  | 'VALIDATION'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'STALE_SESSION'
  | 'CONCURRENT_INVOCATION'
  | 'CANCELLED'
  | 'INTERRUPTED'
  | 'INTERNAL'
  | 'API_CALL'
  | 'RATE_LIMIT'
  | 'MODEL'
  | 'MODEL_NOT_FOUND'
  | 'OUTPUT_SCHEMA'
  | 'PROVIDER_NOT_REGISTERED'
  | 'MISSING_API_KEY'
  | 'TOOL'
  | 'LLM_CALL_LIMIT'
  | 'PLUGIN'
  | 'CONFIG'
  | 'AUTH'
  | 'ARTIFACT_TOO_LARGE'
  | 'INVALID_TRANSFER'
  | 'SCRIPT_EXHAUSTED'
  | 'LIVE_CONNECTION_CLOSED'
  | 'LIVE_NOT_SUPPORTED'
  | 'LIVE_SEND'
  | 'LIVE_PROTOCOL'
  | 'NODE_TIMEOUT'
  | 'NODE_REPORTED_ERROR'
  | 'UNSUPPORTED_BUILT_IN_TOOL'
  | 'WORKFLOW_OUTPUT'
  | 'WORKFLOW_RESUME'
  | 'WORKFLOW_VALIDATION'
  | 'RESUME_FAILED'
  | 'UPSTREAM'
  | 'GUARDRAIL_TRIPPED'
  | 'MAX_TOOL_ROUNDS_EXCEEDED'
  // memory (observations, facts)
  | 'MEMORY_OBSERVATION_REFUSED'
  | 'MEMORY_FACTS_MALFORMED'
  // scorers on live traffic
  | 'SCORER_TIMEOUT'
  | 'SCORER_OUTPUT'
  // @adk/session-sql
  | 'CREDENTIAL_KEY'
  // @adk/mcp
  | 'MCP_CONNECTION'
  | 'MCP_REQUEST'
  | 'MCP_TIMEOUT'
  // @adk/environments, @adk/skills
  | 'ENVIRONMENT_CLOSED'
  | 'ENVIRONMENT_UNAVAILABLE'
  | 'WORKSPACE_PATH'
  | 'SKILL_FORMAT'
  | 'SKILL_NOT_FOUND'
  | 'TOO_MANY_ACTIVE_SKILLS'
  // @adk/plugins
  | 'MODEL_FALLBACK_EXHAUSTED'
  | 'RATE_LIMITED'
  // @adk/openapi
  | 'OPENAPI_SPEC'
  // @adk/a2a (A2aError: `A2A_<type>`)
  | 'A2A_TASK_NOT_FOUND'
  | 'A2A_TASK_NOT_CANCELABLE'
  | 'A2A_PUSH_NOTIFICATION_NOT_SUPPORTED'
  | 'A2A_UNSUPPORTED_OPERATION'
  | 'A2A_CONTENT_TYPE_NOT_SUPPORTED'
  | 'A2A_INVALID_AGENT_RESPONSE'
  | 'A2A_EXTENDED_AGENT_CARD_NOT_CONFIGURED'
  | 'A2A_EXTENSION_SUPPORT_REQUIRED'
  | 'A2A_VERSION_NOT_SUPPORTED'
  | 'A2A_PARSE_ERROR'
  | 'A2A_INVALID_REQUEST'
  | 'A2A_METHOD_NOT_FOUND'
  | 'A2A_INVALID_PARAMS'
  | 'A2A_INTERNAL'
  | 'A2A_UNAUTHENTICATED'
  | 'A2A_PERMISSION_DENIED'
  | 'A2A_PAYLOAD_TOO_LARGE'
  | 'A2A_TASK_FAILED'
  | 'A2A_TASK_CANCELED'
  | 'A2A_TASK_REJECTED'
  // @adk/server
  | 'UNAUTHORIZED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'SHUTTING_DOWN'
  | 'NOT_READY'
  // @adk/config, @adk/cli conformance
  | 'AGENT_CONFIG'
  | 'CONFORMANCE_FILE'
  // @adk/server, @adk/cli, @adk/config, @adk/eval
  | 'BAD_REQUEST'
  | 'FORBIDDEN'
  | 'APP_LOAD'
  | 'BUILDER_REQUEST'
  | 'CLI_USAGE'
  | 'AGENT_CONFIG_NOT_SUPPORTED'
  | 'CONFORMANCE_MISMATCH'
  | 'CONFORMANCE_SETUP'
  | 'EVAL_FORMAT'
  | 'EVAL_METRIC';

/** Every {@link AdkErrorCode}, for runtime checks (`isAdkErrorCode`) and documentation. */
export const ADK_ERROR_CODES: readonly AdkErrorCode[] = [
  'VALIDATION',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'STALE_SESSION',
  'CONCURRENT_INVOCATION',
  'CANCELLED',
  'INTERRUPTED',
  'INTERNAL',
  'API_CALL',
  'RATE_LIMIT',
  'MODEL',
  'MODEL_NOT_FOUND',
  'OUTPUT_SCHEMA',
  'PROVIDER_NOT_REGISTERED',
  'MISSING_API_KEY',
  'TOOL',
  'LLM_CALL_LIMIT',
  'PLUGIN',
  'CONFIG',
  'AUTH',
  'ARTIFACT_TOO_LARGE',
  'INVALID_TRANSFER',
  'SCRIPT_EXHAUSTED',
  'LIVE_CONNECTION_CLOSED',
  'LIVE_NOT_SUPPORTED',
  'LIVE_SEND',
  'LIVE_PROTOCOL',
  'NODE_TIMEOUT',
  'NODE_REPORTED_ERROR',
  'UNSUPPORTED_BUILT_IN_TOOL',
  'WORKFLOW_OUTPUT',
  'WORKFLOW_RESUME',
  'WORKFLOW_VALIDATION',
  'RESUME_FAILED',
  'UPSTREAM',
  'GUARDRAIL_TRIPPED',
  'MAX_TOOL_ROUNDS_EXCEEDED',
  'MEMORY_OBSERVATION_REFUSED',
  'MEMORY_FACTS_MALFORMED',
  'SCORER_TIMEOUT',
  'SCORER_OUTPUT',
  'CREDENTIAL_KEY',
  'MCP_CONNECTION',
  'MCP_REQUEST',
  'MCP_TIMEOUT',
  'ENVIRONMENT_CLOSED',
  'ENVIRONMENT_UNAVAILABLE',
  'WORKSPACE_PATH',
  'SKILL_FORMAT',
  'SKILL_NOT_FOUND',
  'TOO_MANY_ACTIVE_SKILLS',
  'MODEL_FALLBACK_EXHAUSTED',
  'RATE_LIMITED',
  'OPENAPI_SPEC',
  'A2A_TASK_NOT_FOUND',
  'A2A_TASK_NOT_CANCELABLE',
  'A2A_PUSH_NOTIFICATION_NOT_SUPPORTED',
  'A2A_UNSUPPORTED_OPERATION',
  'A2A_CONTENT_TYPE_NOT_SUPPORTED',
  'A2A_INVALID_AGENT_RESPONSE',
  'A2A_EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  'A2A_EXTENSION_SUPPORT_REQUIRED',
  'A2A_VERSION_NOT_SUPPORTED',
  'A2A_PARSE_ERROR',
  'A2A_INVALID_REQUEST',
  'A2A_METHOD_NOT_FOUND',
  'A2A_INVALID_PARAMS',
  'A2A_INTERNAL',
  'A2A_UNAUTHENTICATED',
  'A2A_PERMISSION_DENIED',
  'A2A_PAYLOAD_TOO_LARGE',
  'UNAUTHORIZED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'SHUTTING_DOWN',
  'NOT_READY',
  'A2A_TASK_FAILED',
  'A2A_TASK_CANCELED',
  'A2A_TASK_REJECTED',
  'AGENT_CONFIG',
  'CONFORMANCE_FILE',
  'BAD_REQUEST',
  'FORBIDDEN',
  'APP_LOAD',
  'BUILDER_REQUEST',
  'CLI_USAGE',
  'AGENT_CONFIG_NOT_SUPPORTED',
  'CONFORMANCE_MISMATCH',
  'CONFORMANCE_SETUP',
  'EVAL_FORMAT',
  'EVAL_METRIC',
];

/** Whether a string is one of our {@link AdkErrorCode}s (a model's own codes, e.g. 'SAFETY', are not). */
export function isAdkErrorCode(code: unknown): code is AdkErrorCode {
  return typeof code === 'string' && (ADK_ERROR_CODES as readonly string[]).includes(code);
}

export interface AdkErrorOptions {
  cause?: unknown;
  details?: Record<string, unknown>;
}

/**
 * Base class of every error the project throws. Identity across package copies is checked with
 * {@link isAdkError} (a `Symbol.for` marker), not `instanceof`.
 */
export class AdkError extends Error {
  readonly code: AdkErrorCode;
  readonly details: Record<string, unknown> | undefined;
  readonly [ADK_ERROR] = true;

  constructor(code: AdkErrorCode, message: string, options: AdkErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options.details;
  }

  toJSON(): { name: string; code: string; message: string; details?: Record<string, unknown> } {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      ...(this.details ? { details: this.details } : {}),
    };
  }
}

export function isAdkError(value: unknown, code?: AdkErrorCode): value is AdkError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[ADK_ERROR] === true &&
    (code === undefined || (value as AdkError).code === code)
  );
}

export class ValidationError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('VALIDATION', message, options);
  }
}

export class NotFoundError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('NOT_FOUND', message, options);
  }
}

export class AlreadyExistsError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('ALREADY_EXISTS', message, options);
  }
}

/** An append was made from a session copy older than the stored session. Reload and retry. */
export class StaleSessionError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('STALE_SESSION', message, options);
  }
}

/** A second run was started on a session that already has one in progress. */
export class ConcurrentInvocationError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('CONCURRENT_INVOCATION', message, options);
  }
}

export class CancelledError extends AdkError {
  constructor(message = 'The operation was cancelled', options?: AdkErrorOptions) {
    super('CANCELLED', message, options);
  }
}

export class ConfigError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions & { code?: AdkErrorCode }) {
    super(options?.code ?? 'CONFIG', message, options);
  }
}

/**
 * A model name no registered provider serves, and that no `@adk/models-*` package is known to serve
 * either. Thrown before a run starts (`Runner.run`), never as an event.
 */
export class ModelNotFoundError extends AdkError {
  constructor(
    message: string,
    options?: AdkErrorOptions & { code?: 'MODEL_NOT_FOUND' | 'PROVIDER_NOT_REGISTERED' },
  ) {
    super(options?.code ?? 'MODEL_NOT_FOUND', message, options);
  }
}

/**
 * A model name that an `@adk/models-*` package serves, but whose provider is not registered
 * (`PROVIDER_NOT_REGISTERED`): the message names the package to install and the function to call.
 */
export class ProviderNotRegisteredError extends ModelNotFoundError {
  /** e.g. '@adk/models-gemini'. */
  readonly packageName: string;
  /** e.g. 'registerGemini'. */
  readonly registerFunction: string;

  constructor(model: string, packageName: string, registerFunction: string, envVars: readonly string[] = []) {
    const key = envVars.length > 0 ? ` and set ${envVars.map((v) => `\`${v}\``).join(' or ')}` : '';
    super(
      `No model provider is registered for "${model}". Install ${packageName} and call ${registerFunction}() before the run${key}, or pass a model object as \`model\`.`,
      {
        code: 'PROVIDER_NOT_REGISTERED',
        details: { model, packageName, registerFunction, envVars: [...envVars] },
      },
    );
    this.packageName = packageName;
    this.registerFunction = registerFunction;
  }
}

/** A provider's API key is neither in its options nor in the environment (`MISSING_API_KEY`). */
export class MissingApiKeyError extends ConfigError {
  readonly envVars: readonly string[];

  constructor(message: string, envVars: readonly string[], options?: AdkErrorOptions) {
    super(message, {
      ...options,
      code: 'MISSING_API_KEY',
      details: { envVars: [...envVars], ...options?.details },
    });
    this.envVars = envVars;
  }
}

/** A model returned something unusable (refusal, safety block, malformed output). */
export class ModelError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions & { code?: AdkErrorCode }) {
    super(options?.code ?? 'MODEL', message, options);
  }
}

export class ToolError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('TOOL', message, options);
  }
}

export class LlmCallLimitError extends AdkError {
  constructor(limit: number) {
    super('LLM_CALL_LIMIT', `The invocation exceeded maxLlmCalls (${limit})`, { details: { limit } });
  }
}

/** The agent (or its model) cannot hold a live session. */
export class LiveNotSupportedError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('LIVE_NOT_SUPPORTED', message, options);
  }
}

/** Describes any thrown value in one line, for error events and error responses. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}

/** The stable code of an error, for `event.errorCode`. */
export function errorCodeOf(error: unknown): AdkErrorCode {
  if (isAdkError(error)) return error.code;
  if (error instanceof Error && error.name === 'AbortError') return 'CANCELLED';
  return 'INTERNAL';
}
