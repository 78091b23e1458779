import type { Event } from '../events/event.js';
import type { Session } from './session.js';
import { withoutTempKeys } from './state.js';

/** The event as persisted: `temp:` keys removed from its state delta (same object if none). */
export function persistableEvent(event: Event): Event {
  const delta = withoutTempKeys(event.actions.stateDelta);
  if (delta === event.actions.stateDelta) return event;
  return { ...event, actions: { ...event.actions, stateDelta: delta } };
}

/** Applies a committed event to a session copy in place: its events and merged state. */
export function applyEventToSession(session: Session, stored: Event, lastUpdateTime: number): void {
  session.events.push(stored);
  const delta = stored.actions.stateDelta;
  for (const key in delta) session.state[key] = delta[key];
  session.lastUpdateTime = lastUpdateTime;
}
