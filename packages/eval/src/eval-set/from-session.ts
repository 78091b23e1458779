import { type Content, type Event, type Session, visibleEvents } from '@adk/core';
import { invocationFromEvents } from '../runner/inference.js';
import type { EvalCase, Invocation } from './types.js';

/**
 * An eval case from a recorded session (what adk-python's "add session to eval set" does): each
 * user message starts an invocation; the agent's events up to the next user message become its
 * final response and intermediate data. Rewound turns are left out (only the visible history
 * counts). The case starts from the state the session was created with (stores that keep it), or
 * from `state` when given.
 */
export function evalCaseFromSession(
  session: Session,
  evalId: string,
  options: { state?: Record<string, unknown> } = {},
): EvalCase {
  const conversation: Invocation[] = [];
  let current: { user: Content; events: Event[]; at: number } | undefined;
  const flush = () => {
    if (!current) return;
    const inv = invocationFromEvents(current.user, current.events, current.at);
    delete inv.duration;
    inv.creationTimestamp = current.at / 1000;
    inv.invocationId = current.events[0]?.invocationId ?? inv.invocationId;
    conversation.push(inv);
  };
  for (const event of visibleEvents(session.events)) {
    if (event.author === 'user' && event.content && event.content.parts.some((p) => p.text !== undefined)) {
      flush();
      current = { user: event.content, events: [event], at: event.timestamp };
    } else if (current) current.events.push(event);
  }
  flush();
  return {
    evalId,
    conversation,
    sessionInput: {
      appName: session.appName,
      userId: session.userId,
      state: options.state ?? session.initialState ?? {},
    },
    creationTimestamp: Date.now() / 1000,
  };
}
