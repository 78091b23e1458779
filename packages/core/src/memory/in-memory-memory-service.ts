import { contentText } from '../events/content.js';
import type { Session } from '../sessions/session.js';
import { visibleEvents } from '../sessions/visible-events.js';
import { getOrCreate } from '../utils/json.js';
import {
  type MemoryEntry,
  type MemoryService,
  type SearchMemoryParams,
  type SearchMemoryResult,
  tokenize,
} from './memory-service.js';

interface Indexed {
  entry: MemoryEntry;
  tokens: Set<string>;
}

/**
 * Keyword memory in process memory: each event with text becomes an entry; a search ranks entries
 * by how many distinct query tokens they contain (ties: newest first).
 */
export class InMemoryMemoryService implements MemoryService {
  private readonly byUser = new Map<string, Map<string, Indexed[]>>();

  async addSessionToMemory(session: Session): Promise<void> {
    const sessions = getOrCreate(this.byUser, `${session.appName}\u0000${session.userId}`, () => new Map());
    const entries: Indexed[] = [];
    for (const event of visibleEvents(session.events)) {
      const text = contentText(event.content);
      if (!event.content || !text.trim()) continue;
      entries.push({
        entry: {
          content: event.content,
          author: event.author,
          timestamp: event.timestamp,
          sessionId: session.id,
        },
        tokens: new Set(tokenize(text)),
      });
    }
    // Re-adding a session replaces its previous entries.
    sessions.set(session.id, entries);
  }

  async searchMemory(params: SearchMemoryParams): Promise<SearchMemoryResult> {
    const limit = params.limit ?? 10;
    const query = [...new Set(tokenize(params.query))];
    const sessions = this.byUser.get(`${params.appName}\u0000${params.userId}`);
    if (!sessions || query.length === 0 || limit <= 0) return { memories: [] };
    const scored: MemoryEntry[] = [];
    for (const entries of sessions.values()) {
      for (const { entry, tokens } of entries) {
        let hits = 0;
        for (const t of query) if (tokens.has(t)) hits++;
        if (hits > 0) scored.push({ ...entry, score: hits / query.length });
      }
    }
    scored.sort((a, b) => (b.score ?? 0) - (a.score ?? 0) || (b.timestamp ?? 0) - (a.timestamp ?? 0));
    return { memories: scored.slice(0, limit) };
  }
}
