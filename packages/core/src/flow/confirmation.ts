import type { InvocationContext } from '../agents/invocation-context.js';
import type { FunctionCall } from '../events/content.js';
import { type Event, eventFunctionResponses, type ToolConfirmation } from '../events/event.js';
import { visibleEvents } from '../sessions/visible-events.js';
import { originalCallOf } from './original-call.js';
import {
  answeredQuestions,
  answersIn,
  invocationUserEventIndex,
  type PauseRequest,
  pauseEvent,
} from './pause.js';

/** The function call the framework sends to the user to ask for a tool-call confirmation. */
export const REQUEST_CONFIRMATION = 'adk_request_confirmation';

/** The function call a tool or agent sends to the user to ask for credentials (auth-required). */
export const REQUEST_CREDENTIAL = 'adk_request_credential';

/**
 * After a response event that requested confirmations: one event with an
 * `adk_request_confirmation` call per pending call, marked long-running so the invocation pauses.
 * The user answers with a function response for that call: `{ confirmed: boolean, payload? }`.
 */
export function confirmationRequestEvent(
  ctx: InvocationContext,
  calls: FunctionCall[],
  responseEvent: Event,
): Event | undefined {
  const requested = responseEvent.actions.requestedToolConfirmations;
  if (!requested) return undefined;
  const requests: PauseRequest[] = [];
  for (const call of calls) {
    const confirmation = requested[call.id];
    if (!confirmation) continue;
    requests.push({
      name: REQUEST_CONFIRMATION,
      args: {
        originalFunctionCall: { id: call.id, name: call.name, args: call.args },
        toolConfirmation: confirmation,
      },
    });
  }
  return pauseEvent({ invocationId: ctx.invocationId, author: ctx.agent.name, branch: ctx.branch }, requests);
}

export { invocationUserEventIndex };

export interface ConfirmedCall {
  call: FunctionCall;
  confirmation: ToolConfirmation;
}

/**
 * A confirmation answer as the event schema's `toolConfirmation` reads it (zod's result: the known
 * keys the answer has, in the schema's order), checked by hand so that the agent loop does not
 * load the event schemas; undefined when the answer does not have that shape.
 */
function toolConfirmationOf(response: unknown): ToolConfirmation | undefined {
  if (typeof response !== 'object' || response === null || Array.isArray(response)) return undefined;
  const answer = response as Record<string, unknown>;
  const { hint, confirmed } = answer;
  if (typeof confirmed !== 'boolean') return undefined;
  if (hint !== undefined && typeof hint !== 'string') return undefined;
  return {
    ...('hint' in answer ? { hint } : {}),
    confirmed,
    ...('payload' in answer ? { payload: answer.payload } : {}),
  } as ToolConfirmation;
}

/**
 * The calls the user has just confirmed or rejected: the latest user event's responses to
 * `adk_request_confirmation`, matched with the original calls they were asked for.
 */
export function pendingConfirmations(ctx: InvocationContext): ConfirmedCall[] {
  const events = visibleEvents(ctx.session.events);
  const lastIndex = invocationUserEventIndex(ctx);
  const last = events[lastIndex];
  if (!last) return [];
  // Checked once per invocation: nothing is allocated unless the message answers a request.
  if (!last.content?.parts.some((p) => p.functionResponse)) return [];
  const answers = answersIn(
    last.content,
    REQUEST_CONFIRMATION,
    (response): ToolConfirmation => toolConfirmationOf(response) ?? { confirmed: false, payload: response },
  );
  if (answers.size === 0) return [];
  const out: ConfirmedCall[] = [];
  for (const { call, answer } of answeredQuestions(events, lastIndex, REQUEST_CONFIRMATION, answers)) {
    const original = originalCallOf(call);
    if (!original) continue;
    out.push({ call: original, confirmation: answer });
  }
  // An agent that runs again in this invocation (the next pass of a loop) must not run them twice.
  const answered = new Set<string>();
  for (let i = lastIndex + 1; i < events.length; i++)
    for (const r of eventFunctionResponses(events[i] as Event)) answered.add(r.id);
  return answered.size === 0 ? out : out.filter((c) => !answered.has(c.call.id));
}
