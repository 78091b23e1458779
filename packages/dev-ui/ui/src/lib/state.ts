import type { AdkEvent, JsonObject } from '../api/types.js';

export interface StateChange {
  key: string;
  before: unknown;
  after: unknown;
  /** False when no earlier event set the key: its value before is the session's initial one, or unset. */
  beforeKnown: boolean;
}

/**
 * The change one event made to the session state: each key of its `stateDelta` with the value an
 * earlier event gave it and the value after. Values set when the session was created are not
 * events, so a key never set by an earlier event shows the initial state's value when the final
 * state still has it unchanged, and "unset" otherwise.
 */
export function stateChanges(events: AdkEvent[], index: number, initial: JsonObject): StateChange[] {
  const event = events[index];
  const delta = event?.actions?.stateDelta;
  if (!delta) return [];
  return Object.entries(delta).map(([key, after]) => {
    for (let i = index - 1; i >= 0; i--) {
      const earlier = events[i]?.actions?.stateDelta;
      if (earlier && key in earlier) return { key, before: earlier[key], after, beforeKnown: true };
    }
    return { key, before: initial[key], after, beforeKnown: key in initial };
  });
}

/** The state as of just after event `index`: the initial state plus every delta up to it. */
export function stateAfter(events: AdkEvent[], index: number, initial: JsonObject): JsonObject {
  const state: JsonObject = { ...initial };
  for (let i = 0; i <= index; i++) {
    const delta = events[i]?.actions?.stateDelta;
    if (!delta) continue;
    for (const [k, v] of Object.entries(delta)) {
      if (k.startsWith('temp:')) continue;
      if (v === null) delete state[k];
      else state[k] = v;
    }
  }
  return state;
}

/**
 * Best guess at the state the session was created with: keys of the final state that no event's
 * delta ever touched.
 */
export function initialState(events: AdkEvent[], finalState: JsonObject): JsonObject {
  const touched = new Set<string>();
  for (const e of events) for (const k of Object.keys(e.actions?.stateDelta ?? {})) touched.add(k);
  const initial: JsonObject = {};
  for (const [k, v] of Object.entries(finalState)) if (!touched.has(k)) initial[k] = v;
  return initial;
}
