import { type Content, contentText } from '../events/content.js';
import type { Event } from '../events/event.js';
import type { Session } from '../sessions/session.js';
import { visibleEvents } from '../sessions/visible-events.js';
import { newId } from '../utils/ids.js';
import { getOrCreate } from '../utils/json.js';
import type { MemoryJobQueue } from './jobs.js';
import { extractKeywords, memoryTextKey } from './keywords.js';
import type { ListMemoriesParams, MemorySearchExplanation } from './memory-inspect.js';
import {
  type AddEventsToMemoryParams,
  type AddMemoryParams,
  type DeleteMemoriesParams,
  type DeleteMemoryParams,
  type MemoryEntry,
  type MemoryKind,
  type MemoryService,
  type SearchMemoryParams,
  type SearchMemoryResult,
  tokenize,
} from './memory-service.js';

interface Indexed {
  entry: MemoryEntry & { id: string; kind: MemoryKind };
  tokens: Set<string>;
  /** Insertion order: ties of timestamps within a session. */
  seq: number;
  key: string;
}

export interface InMemoryMemoryServiceOptions {
  /** A job outbox: the Runner enqueues each committed turn there (see `MemoryJobWorker`). */
  jobs?: MemoryJobQueue;
}

const KIND_ORDER: Record<MemoryKind, number> = { fact: 0, observation: 1, turn: 2 };

/**
 * Keyword memory in process memory. Each event with text becomes a turn (its id is the event's id,
 * so indexing an event again replaces it) stored with keywords extracted from its text. A search
 * scores entries by the share of distinct query tokens they contain; facts come before
 * observations and turns, a superseded fact is never returned, identical facts are stored once.
 */
export class InMemoryMemoryService implements MemoryService {
  // explainSearch and listMemories (the optional inspection methods) are at the end.
  readonly jobs?: MemoryJobQueue;
  private readonly byUser = new Map<string, Map<string, Indexed>>();
  private seq = 0;

  constructor(options: InMemoryMemoryServiceOptions = {}) {
    if (options.jobs) this.jobs = options.jobs;
  }

  private user(appName: string, userId: string): Map<string, Indexed> {
    return getOrCreate(this.byUser, `${appName}\u0000${userId}`, () => new Map());
  }

  async addSessionToMemory(session: Session, options?: { signal?: AbortSignal }): Promise<void> {
    options?.signal?.throwIfAborted();
    const entries = this.user(session.appName, session.userId);
    // Re-adding a session replaces its previous turns.
    for (const [id, e] of entries)
      if (e.entry.kind === 'turn' && e.entry.sessionId === session.id) entries.delete(id);
    this.indexEvents(entries, session.id, visibleEvents(session.events), undefined);
  }

  async addEventsToMemory(params: AddEventsToMemoryParams): Promise<void> {
    params.signal?.throwIfAborted();
    this.indexEvents(
      this.user(params.appName, params.userId),
      params.sessionId,
      params.events,
      params.customMetadata,
    );
  }

  private indexEvents(
    entries: Map<string, Indexed>,
    sessionId: string | undefined,
    events: readonly Event[],
    customMetadata: Record<string, unknown> | undefined,
  ): void {
    for (const event of events) {
      const text = contentText(event.content);
      if (!event.content || event.partial || !text.trim()) continue;
      const keywords = extractKeywords(text);
      const previous = entries.get(event.id);
      const entry: Indexed['entry'] = {
        id: event.id,
        kind: 'turn',
        content: structuredClone(event.content),
        author: event.author,
        timestamp: event.timestamp,
        eventIds: [event.id],
        keywords,
        ...(sessionId !== undefined ? { sessionId } : {}),
        ...(customMetadata ? { customMetadata: structuredClone(customMetadata) } : {}),
      };
      entries.set(event.id, {
        entry,
        tokens: new Set([...tokenize(text), ...keywords]),
        seq: previous?.seq ?? this.seq++,
        key: memoryTextKey('turn', text),
      });
    }
  }

  async addMemory(params: AddMemoryParams): Promise<string[]> {
    params.signal?.throwIfAborted();
    const entries = this.user(params.appName, params.userId);
    const ids: string[] = [];
    for (const memory of params.memories) {
      const kind = memory.kind ?? 'turn';
      const text = contentText(memory.content);
      const key = memoryTextKey(kind, text);
      if (kind === 'fact') {
        const same = [...entries.values()].find((e) => e.entry.kind === 'fact' && e.key === key);
        if (same) {
          ids.push(same.entry.id);
          continue;
        }
      }
      const id = memory.id ?? newId();
      const keywords = memory.keywords ?? extractKeywords(text);
      const { score: _s, ranks: _r, neighbours: _n, ...rest } = memory;
      const entry: Indexed['entry'] = {
        ...structuredClone(rest),
        id,
        kind,
        content: structuredClone(memory.content) as Content,
        timestamp: memory.timestamp ?? Date.now(),
        keywords,
        ...(params.customMetadata || memory.customMetadata
          ? { customMetadata: structuredClone({ ...params.customMetadata, ...memory.customMetadata }) }
          : {}),
      };
      const previous = entries.get(id);
      entries.set(id, {
        entry,
        tokens: new Set([...tokenize(text), ...keywords]),
        seq: previous?.seq ?? this.seq++,
        key,
      });
      ids.push(id);
    }
    return ids;
  }

  async deleteMemory(params: DeleteMemoryParams): Promise<boolean> {
    params.signal?.throwIfAborted();
    return this.byUser.get(`${params.appName}\u0000${params.userId}`)?.delete(params.id) ?? false;
  }

  async deleteMemories(params: DeleteMemoriesParams): Promise<number> {
    params.signal?.throwIfAborted();
    const entries = this.byUser.get(`${params.appName}\u0000${params.userId}`);
    if (!entries) return 0;
    const ids = params.ids ? new Set(params.ids) : undefined;
    let deleted = 0;
    for (const [id, { entry }] of entries) {
      if (ids && !ids.has(id)) continue;
      if (params.sessionId !== undefined && entry.sessionId !== params.sessionId) continue;
      if (params.kinds && !params.kinds.includes(entry.kind)) continue;
      if (params.before !== undefined && !((entry.timestamp ?? 0) < params.before)) continue;
      entries.delete(id);
      deleted++;
    }
    return deleted;
  }

  async searchMemory(params: SearchMemoryParams): Promise<SearchMemoryResult> {
    params.signal?.throwIfAborted();
    const limit = params.limit ?? 10;
    const query = [...new Set(tokenize(params.query))];
    const entries = this.byUser.get(`${params.appName}\u0000${params.userId}`);
    if (!entries || query.length === 0 || limit <= 0) return { memories: [] };
    if (params.scope === 'session' && params.sessionId === undefined)
      throw new TypeError("searchMemory: scope 'session' needs a sessionId");
    const superseded = new Set<string>();
    for (const { entry } of entries.values())
      if (entry.kind === 'fact' && entry.supersedes) superseded.add(entry.supersedes);
    const from = params.timeRange?.from ?? Number.NEGATIVE_INFINITY;
    const to = params.timeRange?.to ?? Number.POSITIVE_INFINITY;
    const scored: { item: Indexed; score: number }[] = [];
    for (const item of entries.values()) {
      const { entry } = item;
      if (params.scope === 'session' && entry.sessionId !== params.sessionId) continue;
      if (params.kinds && !params.kinds.includes(entry.kind)) continue;
      if (superseded.has(entry.id)) continue;
      const t = entry.timestamp ?? 0;
      if (t < from || t > to) continue;
      let hits = 0;
      for (const token of query) if (item.tokens.has(token)) hits++;
      if (hits === 0) continue;
      const score = hits / query.length;
      if (params.minScore !== undefined && score < params.minScore) continue;
      scored.push({ item, score });
    }
    // The keyword ranking, then facts before observations before turns.
    scored.sort(
      (a, b) =>
        b.score - a.score ||
        (b.item.entry.timestamp ?? 0) - (a.item.entry.timestamp ?? 0) ||
        b.item.seq - a.item.seq,
    );
    const ranked = scored.map((s, i) => ({ ...s, rank: i + 1 }));
    ranked.sort((a, b) => KIND_ORDER[a.item.entry.kind] - KIND_ORDER[b.item.entry.kind] || a.rank - b.rank);
    const memories = ranked.slice(0, limit).map(({ item, score, rank }) => {
      const result: MemoryEntry = { ...structuredClone(item.entry), score, ranks: { fullText: rank } };
      if (params.window && item.entry.kind === 'turn' && item.entry.sessionId !== undefined)
        result.neighbours = this.neighbours(entries, item, params.window);
      return result;
    });
    return { memories };
  }

  private neighbours(
    entries: Map<string, Indexed>,
    hit: Indexed,
    window: { before: number; after: number },
  ): MemoryEntry[] {
    const turns = [...entries.values()]
      .filter((e) => e.entry.kind === 'turn' && e.entry.sessionId === hit.entry.sessionId)
      .sort((a, b) => (a.entry.timestamp ?? 0) - (b.entry.timestamp ?? 0) || a.seq - b.seq);
    const at = turns.indexOf(hit);
    const before = turns.slice(Math.max(0, at - Math.max(0, window.before)), at);
    const after = turns.slice(at + 1, at + 1 + Math.max(0, window.after));
    return [...before, ...after].map((e) => structuredClone(e.entry));
  }
  /** This store has one ranker (keywords): `vector` is absent, `fused` is `searchMemory`'s answer. */
  async explainSearch(params: SearchMemoryParams): Promise<MemorySearchExplanation> {
    const { memories } = await this.searchMemory(params);
    const fullText = [...memories].sort((a, b) => (a.ranks?.fullText ?? 0) - (b.ranks?.fullText ?? 0));
    return { fullText, fused: memories };
  }

  async listMemories(params: ListMemoriesParams): Promise<MemoryEntry[]> {
    params.signal?.throwIfAborted();
    const entries = this.byUser.get(`${params.appName}\u0000${params.userId}`);
    if (!entries) return [];
    return [...entries.values()]
      .filter((e) => !params.kinds || params.kinds.includes(e.entry.kind))
      .sort((a, b) => (b.entry.timestamp ?? 0) - (a.entry.timestamp ?? 0) || b.seq - a.seq)
      .slice(0, Math.max(0, params.limit ?? 100))
      .map((e) => structuredClone(e.entry));
  }
}
