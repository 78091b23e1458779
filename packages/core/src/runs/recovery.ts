import type { FunctionCall } from '../events/content.js';
import { createEvent, type Event, eventFunctionCalls, eventFunctionResponses } from '../events/event.js';

/** What the model reads for a call that a stopped process started and that is not run again. */
export const INTERRUPTED_CALL_ERROR =
  'The tool call was interrupted: the process running it stopped before it answered. It was not run again because the tool is not declared idempotent; check its effect before calling it again.';

/**
 * The calls `agent` made in this invocation that have no response yet and are not waiting for an
 * answer on purpose (long-running calls): what a crash left unanswered.
 */
export function unansweredCalls(
  events: readonly Event[],
  invocationId: string,
  agent: string,
): FunctionCall[] {
  const answered = new Set<string>();
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as Event;
    if (event.invocationId !== invocationId) break;
    for (const r of eventFunctionResponses(event)) answered.add(r.id);
    if (event.author !== agent) continue;
    const calls = eventFunctionCalls(event);
    if (calls.length === 0) continue;
    const waiting = new Set(event.longRunningToolIds ?? []);
    return calls.filter((c) => !answered.has(c.id) && !waiting.has(c.id));
  }
  return [];
}

/** One function-response event answering `calls` with the interrupted error. */
export function interruptedResponses(
  calls: FunctionCall[],
  init: { invocationId: string; author: string; branch: string | undefined },
): Event {
  return createEvent({
    invocationId: init.invocationId,
    author: init.author,
    ...(init.branch ? { branch: init.branch } : {}),
    content: {
      role: 'user',
      parts: calls.map((call) => ({
        functionResponse: { id: call.id, name: call.name, response: { error: INTERRUPTED_CALL_ERROR } },
      })),
    },
  });
}
