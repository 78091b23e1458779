import type { InvocationContext } from '../agents/invocation-context.js';
import type { Content, FunctionCall, Part } from '../events/content.js';
import { createEvent, type Event, eventFunctionCalls, type NodeInfo } from '../events/event.js';
import { visibleEvents } from '../sessions/visible-events.js';
import { newFunctionCallId } from '../utils/ids.js';

/**
 * The one pause-and-answer mechanism behind tool confirmations (`adk_request_confirmation`),
 * credential requests (`adk_request_credential`) and workflow questions (`adk_request_input`):
 * the framework asks with a long-running function call, the run pauses, and the client answers
 * with a function response of the same id in a later message (docs/architecture.md §5.2).
 */
export interface PauseRequest {
  /** The function name of the question. */
  name: string;
  args: Record<string, unknown>;
  /** The call id (default: a fresh one). */
  id?: string;
}

export interface PauseEventInit {
  invocationId: string;
  author: string;
  branch?: string | undefined;
  nodeInfo?: NodeInfo;
  stateDelta?: Record<string, unknown>;
}

/** A model-side event asking the questions, marked long-running so the invocation pauses. */
export function pauseEvent(init: PauseEventInit, requests: PauseRequest[]): Event | undefined {
  if (requests.length === 0) return undefined;
  const parts: Part[] = [];
  const ids: string[] = [];
  for (const request of requests) {
    const id = request.id ?? newFunctionCallId();
    ids.push(id);
    parts.push({ functionCall: { id, name: request.name, args: request.args } });
  }
  return createEvent({
    invocationId: init.invocationId,
    author: init.author,
    branch: init.branch,
    content: { role: 'model', parts },
    longRunningToolIds: ids,
    ...(init.nodeInfo ? { nodeInfo: init.nodeInfo } : {}),
    ...(init.stateDelta ? { actions: { stateDelta: init.stateDelta } } : {}),
  });
}

/**
 * Index of this invocation's user message in the session (callbacks may have committed events
 * after it), or -1. Answers to paused calls arrive in it.
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

/** The answers a message gives to questions named `name`, by call id; `parse` may drop or convert one. */
export function answersIn<T>(
  content: Content | undefined,
  name: string,
  parse: (response: Record<string, unknown>, id: string) => T | undefined,
): Map<string, T> {
  const answers = new Map<string, T>();
  for (const part of content?.parts ?? []) {
    const r = part.functionResponse;
    if (r?.name !== name) continue;
    const answer = parse(r.response, r.id);
    if (answer !== undefined) answers.set(r.id, answer);
  }
  return answers;
}

/**
 * The questions (calls named `name`, before `beforeIndex`) that the answers respond to, newest
 * first, each with its answer. Matched answers are removed from `answers`.
 */
export function answeredQuestions<T>(
  events: readonly Event[],
  beforeIndex: number,
  name: string,
  answers: Map<string, T>,
): { call: FunctionCall; answer: T; index: number }[] {
  const out: { call: FunctionCall; answer: T; index: number }[] = [];
  for (let i = beforeIndex - 1; i >= 0 && answers.size > 0; i--) {
    for (const call of eventFunctionCalls(events[i] as Event)) {
      if (call.name !== name) continue;
      const answer = answers.get(call.id);
      if (answer === undefined) continue;
      answers.delete(call.id);
      out.push({ call, answer, index: i });
    }
  }
  return out;
}
