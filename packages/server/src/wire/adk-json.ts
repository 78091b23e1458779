import type { Event, EventActions, Session } from '@adk/core';

/**
 * ADK's wire shapes (its pydantic models dumped with camelCase aliases and `exclude_none`): the
 * same fields as our events and sessions, except that times are float seconds, not milliseconds,
 * and `actions` always carries its dictionaries.
 */
export type AdkEventJson = Omit<Event, 'timestamp' | 'actions'> & {
  timestamp: number;
  actions: AdkEventActionsJson;
};

export type AdkEventActionsJson = Omit<EventActions, 'compaction'> & {
  requestedAuthConfigs: Record<string, unknown>;
  requestedToolConfirmations: NonNullable<EventActions['requestedToolConfirmations']>;
  compaction?: { startTimestamp: number; endTimestamp: number; compactedContent: unknown };
};

export interface AdkSessionJson {
  id: string;
  appName: string;
  userId: string;
  state: Record<string, unknown>;
  events: AdkEventJson[];
  lastUpdateTime: number;
  /** Where a forked session came from (ours; ADK has no forks). */
  forkedFrom?: { sessionId: string; eventId?: string };
}

const seconds = (ms: number): number => ms / 1000;

/** An event as ADK's api_server serializes it. */
export function eventToAdkJson(event: Event): AdkEventJson {
  const { timestamp, actions, ...rest } = event;
  const { compaction, ...otherActions } = actions;
  const out: AdkEventJson = {
    ...rest,
    timestamp: seconds(timestamp),
    actions: {
      ...otherActions,
      stateDelta: actions.stateDelta ?? {},
      artifactDelta: actions.artifactDelta ?? {},
      requestedAuthConfigs: actions.requestedAuthConfigs ?? {},
      requestedToolConfirmations: actions.requestedToolConfirmations ?? {},
      ...(compaction
        ? {
            compaction: {
              startTimestamp: seconds(compaction.startTimestamp),
              endTimestamp: seconds(compaction.endTimestamp),
              compactedContent: compaction.compactedContent,
            },
          }
        : {}),
    },
  };
  return out;
}

/** A session as ADK's api_server serializes it (events included when loaded). */
export function sessionToAdkJson(session: Session): AdkSessionJson {
  return {
    id: session.id,
    appName: session.appName,
    userId: session.userId,
    state: session.state,
    events: session.events.map(eventToAdkJson),
    lastUpdateTime: seconds(session.lastUpdateTime),
    ...(session.forkedFrom ? { forkedFrom: session.forkedFrom } : {}),
  };
}

/**
 * An event sent by a client in ADK's shape (seconds) converted to ours (milliseconds). Values the
 * client left out are filled in by `createEvent` later; empty optional dictionaries are dropped.
 */
export function eventFromAdkJson(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...value };
  if (typeof out.timestamp === 'number') out.timestamp = out.timestamp * 1000;
  const actions = out.actions;
  if (actions && typeof actions === 'object' && !Array.isArray(actions)) {
    const a: Record<string, unknown> = { ...(actions as Record<string, unknown>) };
    for (const key of ['requestedAuthConfigs', 'requestedToolConfirmations'] as const) {
      const v = a[key];
      if (v && typeof v === 'object' && Object.keys(v).length === 0) delete a[key];
    }
    const c = a.compaction as Record<string, unknown> | undefined;
    if (c && typeof c === 'object') {
      a.compaction = {
        ...c,
        ...(typeof c.startTimestamp === 'number' ? { startTimestamp: c.startTimestamp * 1000 } : {}),
        ...(typeof c.endTimestamp === 'number' ? { endTimestamp: c.endTimestamp * 1000 } : {}),
      };
    }
    out.actions = a;
  }
  for (const key of Object.keys(out)) if (out[key] === null) delete out[key];
  return out;
}
