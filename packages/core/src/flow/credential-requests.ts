/**
 * The synchronous side of credential requests, which the agent loop uses on every turn: the request
 * event, and whether a message answers a request. Reading an answer (its schema, redacting its
 * secrets: `auth-request.ts`) is imported only when a message does.
 */
import type { InvocationContext } from '../agents/invocation-context.js';
import type { Content, FunctionCall } from '../events/content.js';
import type { Event } from '../events/event.js';
import { visibleEvents } from '../sessions/visible-events.js';
import { REQUEST_CREDENTIAL } from './confirmation.js';
import { invocationUserEventIndex, type PauseRequest, pauseEvent } from './pause.js';

/**
 * After a response event whose calls requested credentials: one event with an
 * `adk_request_credential` call per such call (args `{ functionCallId, authConfig }`, as in ADK),
 * marked long-running so the invocation pauses. The client answers with a function response for
 * that call whose response is the completed auth config.
 */
export function authRequestEvent(
  ctx: InvocationContext,
  calls: FunctionCall[],
  responseEvent: Event,
): Event | undefined {
  const requested = responseEvent.actions.requestedAuthConfigs;
  if (!requested) return undefined;
  const requests: PauseRequest[] = [];
  for (const call of calls) {
    const config = requested[call.id];
    if (!config) continue;
    requests.push({ name: REQUEST_CREDENTIAL, args: { functionCallId: call.id, authConfig: config } });
  }
  return pauseEvent({ invocationId: ctx.invocationId, author: ctx.agent.name, branch: ctx.branch }, requests);
}

/** Whether a message answers an `adk_request_credential` request. */
export function answersCredentialRequest(message: Content | undefined): boolean {
  return message?.parts.some((p) => p.functionResponse?.name === REQUEST_CREDENTIAL) ?? false;
}

/** Whether this invocation's user message answers a credential request (see `pendingAuthResponses`). */
export function hasAuthResponses(ctx: InvocationContext): boolean {
  const last = visibleEvents(ctx.session.events)[invocationUserEventIndex(ctx)];
  return answersCredentialRequest(last?.content);
}

let answers: Promise<typeof import('./auth-request.js')> | undefined;
/** Reading and redacting credential answers (`takeAuthAnswers`, `pendingAuthResponses`), imported once on first use. */
export const loadAuthAnswers = () => (answers ??= import('./auth-request.js'));
