import { AdkError, type AdkErrorOptions } from '@adk/core';

/** An eval set, eval config or eval result that does not match adk-python's format. */
export class EvalFormatError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('EVAL_FORMAT', message, options);
  }
}

/** A metric that cannot run: unknown name, missing criterion field, no expected invocations. */
export class EvalMetricError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('EVAL_METRIC', message, options);
  }
}
