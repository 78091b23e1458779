import type { AdkEvent } from '../api/types.js';

/**
 * Ids of the events a later rewind hid: from the first event of the rewound invocation up to the
 * rewinding event (the same rule as `visibleEvents` in @adk/core, which the page does not bundle). A
 * rewind inside a hidden span has no effect.
 */
export function rewoundEventIds(events: readonly AdkEvent[]): Set<string> {
  const hidden = new Set<string>();
  if (!events.some((e) => e.actions?.rewindBeforeInvocationId)) return hidden;
  const first = new Map<string, number>();
  events.forEach((e, i) => {
    if (e.invocationId !== undefined && !first.has(e.invocationId)) first.set(e.invocationId, i);
  });
  for (let i = events.length - 1; i >= 0; i--) {
    const target = events[i]?.actions?.rewindBeforeInvocationId;
    if (!target) continue;
    const start = first.get(target);
    if (start === undefined || start >= i) continue;
    for (let j = start; j < i; j++) hidden.add((events[j] as AdkEvent).id);
    i = start;
  }
  return hidden;
}

/** The user's text message that started an invocation (what Regenerate sends again). */
export function userMessageOf(
  events: readonly AdkEvent[],
  invocationId: string | undefined,
): AdkEvent | undefined {
  if (!invocationId) return undefined;
  return events.find(
    (e) =>
      e.author === 'user' &&
      e.invocationId === invocationId &&
      (e.content?.parts ?? []).some((p) => p.text !== undefined && !p.thought),
  );
}

/** Whether an event is a user's own text message (one that can be edited and sent again). */
export function isUserText(event: AdkEvent): boolean {
  return (
    event.author === 'user' &&
    !!event.invocationId &&
    (event.content?.parts ?? []).some((p) => p.text !== undefined) &&
    !(event.content?.parts ?? []).some((p) => p.functionResponse)
  );
}
