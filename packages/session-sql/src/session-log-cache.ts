import type { Event, SessionKey } from '@adk/core';
import { evictOldest } from '@adk/core/internal';

/** What the cache holds of one session: its complete event log as of one stored version. */
export interface CachedLog {
  /** `created_at` and `updated_at` of the row the log belongs to, in µs (as read, text or number). */
  createdUs: string;
  updatedUs: string;
  /** `seq` of the last event held. */
  lastSeq: number;
  events: Event[];
}

/**
 * Recently used sessions' event logs, so a turn reads only what changed since the last one. An
 * entry is trusted only while the stored row still has the same `created_at` and `updated_at`
 * (checked by the caller in the same query that reads the state); any other writer — another
 * process included — moves `updated_at`, and then only events after `lastSeq` are fetched. Bounded
 * by a number of sessions, least recently used evicted first.
 */
export class SessionLogCache {
  private readonly entries = new Map<string, CachedLog>();

  constructor(private readonly maxSessions: number) {}

  get(key: SessionKey): CachedLog | undefined {
    const id = cacheKey(key);
    const entry = this.entries.get(id);
    if (entry) {
      this.entries.delete(id);
      this.entries.set(id, entry);
    }
    return entry;
  }

  set(key: SessionKey, entry: CachedLog): void {
    const id = cacheKey(key);
    this.entries.delete(id);
    this.entries.set(id, entry);
    evictOldest(this.entries, this.maxSessions);
  }

  delete(key: SessionKey): void {
    this.entries.delete(cacheKey(key));
  }

  /** After this process appended `event` to a copy at `fromUs`: extend the entry, or drop it. */
  appended(key: SessionKey, fromUs: string, toUs: string, event: Event): void {
    const entry = this.entries.get(cacheKey(key));
    if (!entry) return;
    if (entry.updatedUs !== fromUs) {
      this.delete(key);
      return;
    }
    // The append's optimistic check proved no other write came between: its seq is the next one.
    entry.events.push(event);
    entry.lastSeq += 1;
    entry.updatedUs = toUs;
  }
}

function cacheKey(key: SessionKey): string {
  return `${key.appName}\u0000${key.userId}\u0000${key.sessionId}`;
}
