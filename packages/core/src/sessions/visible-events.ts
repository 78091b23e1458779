import type { Event } from '../events/event.js';

const TRIPPED = 'GUARDRAIL_TRIPPED';

/** Per log array: how far it was scanned without finding a rewind (the common case: none). */
const scanned = new WeakMap<readonly Event[], number>();

/**
 * The history every reader sees (docs/architecture.md §5.5): the log without the spans that a
 * later event with `actions.rewindBeforeInvocationId` rewound, i.e. from the first event of that
 * invocation up to the rewinding event (the rewinding event itself stays: it carries the restoring
 * state and artifact deltas). A rewind inside a span that a later rewind hides has no effect, so a
 * second rewind reaching further back simply wins. Logs without rewinds are returned as they are
 * (the same array), and only their new tail is scanned on the next call.
 */
export function visibleEvents<T extends Event>(events: readonly T[]): T[] {
  const from = scanned.get(events) ?? 0;
  let found = false;
  for (let i = from; i < events.length; i++) {
    const event = events[i] as T;
    if (event.actions.rewindBeforeInvocationId !== undefined || event.errorCode === TRIPPED) {
      found = true;
      break;
    }
  }
  if (!found) {
    scanned.set(events, events.length);
    return events as T[];
  }
  const firstIndex = firstIndexByInvocation(events);
  const hidden = new Uint8Array(events.length);
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as T;
    // A guardrail's tripwire withdraws its invocation: nothing of it reaches the model's history or
    // memory again (docs/decisions/0030-guardrails.md); the error event itself stays.
    const target =
      event.actions.rewindBeforeInvocationId ??
      (event.errorCode === TRIPPED ? event.invocationId : undefined);
    if (target === undefined) continue;
    const start = firstIndex.get(target);
    if (start === undefined || start >= i) continue;
    hidden.fill(1, start, i);
    i = start;
  }
  const out: T[] = [];
  for (let i = 0; i < events.length; i++) if (hidden[i] === 0) out.push(events[i] as T);
  return out;
}

/** Whether any event of the log is hidden by a rewind (cheap when there is none). */
export function hasRewinds(events: readonly Event[]): boolean {
  return visibleEvents(events) !== events;
}

/**
 * Ids of the events a rewind hides (for readers that show the whole log, such as a UI that keeps
 * rewound turns visible but marked).
 */
export function rewoundEventIds(events: readonly Event[]): Set<string> {
  const visible = visibleEvents(events);
  if (visible === events) return new Set();
  const kept = new Set(visible);
  const out = new Set<string>();
  for (const e of events) if (!kept.has(e)) out.add(e.id);
  return out;
}

/** The index of the first event of every invocation in the log. */
export function firstIndexByInvocation(events: readonly Event[]): Map<string, number> {
  const first = new Map<string, number>();
  for (let i = 0; i < events.length; i++) {
    const id = (events[i] as Event).invocationId;
    if (!first.has(id)) first.set(id, i);
  }
  return first;
}
