import type { JsonSchema } from '../models/llm.js';
import { newFunctionCallId } from '../utils/ids.js';

/** The function call that asks the user for input in the middle of a workflow. */
export const REQUEST_INPUT = 'adk_request_input';
/** @google/adk's name for {@link REQUEST_INPUT}. */
export const REQUEST_INPUT_FUNCTION_CALL_NAME = REQUEST_INPUT;

const REQUEST_INPUT_BRAND = Symbol.for('@adk/core.RequestInput');

/** A zod schema, or a JSON Schema object, describing the reply a question expects. */
export type ResponseSchema = JsonSchema | { safeParse(value: unknown): unknown; _zod?: unknown };

export interface RequestInputParams {
  /** The id of the question (and of its `adk_request_input` call); generated when omitted. */
  interruptId?: string;
  /** What to ask the user. */
  message?: string;
  /** Anything the client needs to answer (shown by the dev UI). */
  payload?: unknown;
  /** The shape of the reply: the client builds a form from it and the reply is checked against it. */
  responseSchema?: ResponseSchema;
}

/**
 * Returned or yielded by a node to ask the user something: the node's branch pauses with an
 * `adk_request_input` call (marked long-running) and the turn ends once the other branches are
 * done. The user's function response to that call resumes the workflow.
 */
export class RequestInput {
  readonly [REQUEST_INPUT_BRAND] = true;
  readonly interruptId: string;
  readonly message: string | undefined;
  readonly payload: unknown;
  readonly responseSchema: ResponseSchema | undefined;

  constructor(params: RequestInputParams = {}) {
    this.interruptId = params.interruptId ?? newFunctionCallId();
    this.message = params.message;
    this.payload = params.payload;
    this.responseSchema = params.responseSchema;
  }
}

export function isRequestInput(value: unknown): value is RequestInput {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[REQUEST_INPUT_BRAND] === true
  );
}
