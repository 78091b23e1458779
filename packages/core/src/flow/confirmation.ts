import type { InvocationContext } from '../agents/invocation-context.js';
import type { FunctionCall } from '../events/content.js';
import {
  createEvent,
  type Event,
  eventFunctionCalls,
  eventFunctionResponses,
  type ToolConfirmation,
} from '../events/event.js';
import { eventSchemas } from '../events/schemas.js';
import { visibleEvents } from '../sessions/visible-events.js';
import { newFunctionCallId } from '../utils/ids.js';
import { isPlainObject } from '../utils/json.js';

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
  const parts = [];
  const ids: string[] = [];
  for (const call of calls) {
    const confirmation = requested[call.id];
    if (!confirmation) continue;
    const id = newFunctionCallId();
    ids.push(id);
    parts.push({
      functionCall: {
        id,
        name: REQUEST_CONFIRMATION,
        args: {
          originalFunctionCall: { id: call.id, name: call.name, args: call.args },
          toolConfirmation: confirmation,
        },
      },
    });
  }
  if (parts.length === 0) return undefined;
  return createEvent({
    invocationId: ctx.invocationId,
    author: ctx.agent.name,
    branch: ctx.branch,
    content: { role: 'model', parts },
    longRunningToolIds: ids,
  });
}

/**
 * Index of this invocation's user message in the session (callbacks may have committed events
 * after it), or -1. Answers to paused calls (confirmations, credentials) arrive in it.
 */
export function invocationUserEventIndex(ctx: InvocationContext): number {
  const events = visibleEvents(ctx.session.events);
  let index = events.length - 1;
  while (index >= 0) {
    const event = events[index] as Event;
    if (event.author === 'user' && event.invocationId === ctx.invocationId) break;
    index--;
  }
  return index;
}

export interface ConfirmedCall {
  call: FunctionCall;
  confirmation: ToolConfirmation;
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
  // Checked once per invocation: no map unless the message answers a request.
  if (!last.content?.parts.some((p) => p.functionResponse)) return [];
  const answers = new Map<string, ToolConfirmation>();
  for (const part of last.content.parts) {
    const r = part.functionResponse;
    if (r?.name !== REQUEST_CONFIRMATION) continue;
    const parsed = eventSchemas().toolConfirmation.safeParse(r.response);
    answers.set(r.id, parsed.success ? parsed.data : { confirmed: false, payload: r.response });
  }
  if (answers.size === 0) return [];
  const out: ConfirmedCall[] = [];
  for (let i = lastIndex - 1; i >= 0 && answers.size > 0; i--) {
    for (const call of eventFunctionCalls(events[i] as Event)) {
      const answer = answers.get(call.id);
      if (!answer || call.name !== REQUEST_CONFIRMATION) continue;
      answers.delete(call.id);
      const original = call.args.originalFunctionCall;
      if (!isPlainObject(original) || typeof original.id !== 'string' || typeof original.name !== 'string')
        continue;
      out.push({
        call: {
          id: original.id,
          name: original.name,
          args: isPlainObject(original.args) ? original.args : {},
        },
        confirmation: answer,
      });
    }
  }
  // An agent that runs again in this invocation (the next pass of a loop) must not run them twice.
  const answered = new Set<string>();
  for (let i = lastIndex + 1; i < events.length; i++)
    for (const r of eventFunctionResponses(events[i] as Event)) answered.add(r.id);
  return answered.size === 0 ? out : out.filter((c) => !answered.has(c.call.id));
}
