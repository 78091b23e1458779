import { AdkError, isAdkErrorCode } from '../errors/errors.js';

/** What is wrong with a workflow graph (the `problem` detail of a {@link WorkflowValidationError}). */
export type WorkflowProblem =
  | 'invalid-edge'
  | 'duplicate-name'
  | 'unreachable-node'
  | 'edge-into-start'
  | 'routed-edge-from-start'
  | 'duplicate-edge'
  | 'multiple-default-routes'
  | 'unconditional-cycle'
  | 'empty-routing-map'
  | 'invalid-option';

/** A workflow graph that cannot run, found when the `Workflow` is constructed. */
export class WorkflowValidationError extends AdkError {
  readonly problem: WorkflowProblem;
  constructor(problem: WorkflowProblem, message: string, details: Record<string, unknown> = {}) {
    super('WORKFLOW_VALIDATION', `Workflow: ${message}`, { details: { problem, ...details } });
    this.problem = problem;
  }
}

/** A node ran longer than its `timeout` (seconds). Retryable like any other node failure. */
export class NodeTimeoutError extends AdkError {
  readonly nodeName: string;
  readonly timeout: number;
  constructor(options: { nodeName: string; timeout: number }) {
    super('NODE_TIMEOUT', `Node "${options.nodeName}" timed out after ${options.timeout} s`, {
      details: { nodeName: options.nodeName, timeout: options.timeout },
    });
    this.nodeName = options.nodeName;
    this.timeout = options.timeout;
  }
}

/** A node run produced more than one output, or a workflow more than one terminal output. */
export class WorkflowOutputError extends AdkError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('WORKFLOW_OUTPUT', message, details ? { details } : {});
  }
}

/**
 * A message that cannot resume a paused workflow: a reply to a question nobody asked, a reply that
 * does not match the question's `response_schema`, or text mixed with replies. The questions stay
 * open.
 */
export class WorkflowResumeError extends AdkError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('WORKFLOW_RESUME', message, details ? { details } : {});
  }
}

/**
 * A node reported a failure with an error event (an agent's error reply) instead of throwing, and
 * produced no output. Its `code` is the reported one; retried like any failure
 * (`exceptions: ['NodeReportedError']`).
 */
export class NodeReportedError extends AdkError {
  readonly nodeName: string;
  constructor(options: {
    nodeName: string;
    errorCode?: string | undefined;
    errorMessage?: string | undefined;
  }) {
    super(
      // A model's own code (e.g. 'SAFETY') is kept in details: `code` stays an AdkErrorCode.
      isAdkErrorCode(options.errorCode) ? options.errorCode : 'NODE_REPORTED_ERROR',
      `Node "${options.nodeName}" reported an error: ${options.errorMessage ?? options.errorCode ?? 'unknown'}`,
      {
        details: {
          nodeName: options.nodeName,
          ...(options.errorCode !== undefined ? { reportedCode: options.errorCode } : {}),
        },
      },
    );
    this.nodeName = options.nodeName;
  }
}
