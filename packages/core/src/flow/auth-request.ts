import type { InvocationContext } from '../agents/invocation-context.js';
import { type AuthConfig, redactAuthConfig } from '../auth/auth-credential.js';
import { authConfigSchema } from '../auth/schemas.js';
import type { Content, FunctionCall, Part } from '../events/content.js';
import { type Event, eventFunctionCalls } from '../events/event.js';
import { visibleEvents } from '../sessions/visible-events.js';
import { isPlainObject } from '../utils/json.js';
import { REQUEST_CREDENTIAL } from './confirmation.js';
import { answeredQuestions, answersIn, invocationUserEventIndex } from './pause.js';

export { authRequestEvent } from './credential-requests.js';

/** The auth config in a client's answer: the response itself (ADK), or under `authConfig`. */
function answerOf(response: Record<string, unknown>): AuthConfig | undefined {
  const candidate = isPlainObject(response.authConfig) ? response.authConfig : response;
  const parsed = authConfigSchema.safeParse(candidate);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Takes the answers to `adk_request_credential` out of a user message: returns the message with
 * their secrets removed (what gets committed to the session) and the answers by request-call id
 * (kept in memory for this invocation only).
 */
export function takeAuthAnswers(message: Content): { message: Content; answers: Map<string, AuthConfig> } {
  const answers = new Map<string, AuthConfig>();
  if (!message.parts.some((p) => p.functionResponse?.name === REQUEST_CREDENTIAL))
    return { message, answers };
  const parts = message.parts.map((part): Part => {
    const r = part.functionResponse;
    if (r?.name !== REQUEST_CREDENTIAL) return part;
    const answer = answerOf(r.response);
    if (!answer) return part;
    answers.set(r.id, answer);
    return {
      ...part,
      functionResponse: { ...r, response: redactAuthConfig(answer) as unknown as Record<string, unknown> },
    };
  });
  return { message: { ...message, parts }, answers };
}

export interface AuthenticatedCall {
  call: FunctionCall;
  authResponse: AuthConfig;
}

/**
 * The calls the client has just supplied credentials for: the latest user event's responses to
 * `adk_request_credential`, matched with the original calls. The answers come from this
 * invocation's memory (the committed event holds no secrets), else from the event itself.
 */
export function pendingAuthResponses(ctx: InvocationContext): AuthenticatedCall[] {
  const events = visibleEvents(ctx.session.events);
  const lastIndex = invocationUserEventIndex(ctx);
  const last = events[lastIndex];
  if (!last) return [];
  // Checked once per invocation: nothing is allocated unless the message answers a request.
  if (!last.content?.parts.some((p) => p.functionResponse)) return [];
  const answers = answersIn(
    last.content,
    REQUEST_CREDENTIAL,
    (response, id) => ctx.shared.authAnswers?.get(id) ?? answerOf(response),
  );
  if (answers.size === 0) return [];
  const wanted = new Map<string, AuthConfig>();
  let i = lastIndex;
  for (const { call, answer, index } of answeredQuestions(events, lastIndex, REQUEST_CREDENTIAL, answers)) {
    i = Math.min(i, index);
    if (typeof call.args.functionCallId === 'string') wanted.set(call.args.functionCallId, answer);
  }
  // The original calls come before the requests that asked for their credentials.
  const out: AuthenticatedCall[] = [];
  for (i = i - 1; i >= 0 && wanted.size > 0; i--) {
    for (const call of eventFunctionCalls(events[i] as Event)) {
      const answer = wanted.get(call.id);
      if (!answer) continue;
      wanted.delete(call.id);
      out.push({ call, authResponse: answer });
    }
  }
  return out;
}
