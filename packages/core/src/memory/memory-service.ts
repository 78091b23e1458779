import type { Content } from '../events/content.js';
import type { Event } from '../events/event.js';
import type { Session } from '../sessions/session.js';

/** What a memory is: a conversation turn, an observation (a dated summary of turns) or a fact. */
export type MemoryKind = 'turn' | 'observation' | 'fact';

/** Which ranker found a memory, and at which rank (1 = best). Recorded for recall's metadata. */
export interface MemoryRanks {
  fullText?: number;
  vector?: number;
}

export interface MemoryEntry {
  /** Store-assigned id; stable, used by `deleteMemory` and by `supersedes`. */
  id?: string;
  content: Content;
  author?: string;
  /** ms */
  timestamp?: number;
  /** Relevance, higher is better. */
  score?: number;
  sessionId?: string;
  /** `'turn'` when absent. */
  kind?: MemoryKind;
  /** The events this memory was made from (a turn's event, an observation's or a fact's sources). */
  eventIds?: string[];
  /** Facts: when the fact became true (ms). */
  validFrom?: number;
  /** Facts: the id of the fact this one replaces. A superseded fact is never returned as current. */
  supersedes?: string;
  /** Keywords extracted when the memory was indexed. */
  keywords?: string[];
  /** Which rankers found it (search results only). */
  ranks?: MemoryRanks;
  /** Neighbouring turns of the same session (search results with `window` only), oldest first. */
  neighbours?: MemoryEntry[];
  customMetadata?: Record<string, unknown>;
}

export interface SearchMemoryParams {
  appName: string;
  userId: string;
  query: string;
  /** Maximum number of results (default 10). */
  limit?: number;
  /** `'user'` (default): every session of the user; `'session'`: only `sessionId`. */
  scope?: 'user' | 'session';
  /** Required with `scope: 'session'`. */
  sessionId?: string;
  /** Kinds to search (default: all). */
  kinds?: MemoryKind[];
  /** Neighbouring turns of the same session to return with each hit. */
  window?: { before: number; after: number };
  /** Only memories whose timestamp falls in this range (ms, inclusive). */
  timeRange?: { from?: number; to?: number };
  /** Drop results scoring below this. */
  minScore?: number;
  signal?: AbortSignal;
}

export interface SearchMemoryResult {
  memories: MemoryEntry[];
}

export interface AddEventsToMemoryParams {
  appName: string;
  userId: string;
  sessionId?: string;
  /** Events to index as turns; adding an event id again replaces its entry (idempotent). */
  events: readonly Event[];
  customMetadata?: Record<string, unknown>;
  signal?: AbortSignal;
}

export interface AddMemoryParams {
  appName: string;
  userId: string;
  /** Memories written directly (observations, facts, notes). Ids are assigned when absent. */
  memories: readonly MemoryEntry[];
  customMetadata?: Record<string, unknown>;
  signal?: AbortSignal;
}

export interface DeleteMemoryParams {
  appName: string;
  userId: string;
  id: string;
  signal?: AbortSignal;
}

export interface DeleteMemoriesParams {
  appName: string;
  userId: string;
  /** Which memories; every filter given must match. No filter deletes all of the user's memories. */
  ids?: readonly string[];
  sessionId?: string;
  kinds?: readonly MemoryKind[];
  /** Only memories older than this (ms). */
  before?: number;
  signal?: AbortSignal;
}

/**
 * Long-term memory across sessions of a user. `addSessionToMemory` and `searchMemory` are the
 * minimum; every built-in store also implements the optional methods (adk-python's names).
 */
export interface MemoryService {
  addSessionToMemory(session: Session, options?: { signal?: AbortSignal }): Promise<void>;
  searchMemory(params: SearchMemoryParams): Promise<SearchMemoryResult>;
  /** Index events as turns (the per-turn path: no whole-session rewrite). */
  addEventsToMemory?(params: AddEventsToMemoryParams): Promise<void>;
  /** Write memories directly; resolves to their ids in order. */
  addMemory?(params: AddMemoryParams): Promise<string[]>;
  /** Resolves to whether a memory was deleted. */
  deleteMemory?(params: DeleteMemoryParams): Promise<boolean>;
  /** Resolves to how many memories were deleted. */
  deleteMemories?(params: DeleteMemoriesParams): Promise<number>;
}

/**
 * Unicode-aware word tokens: NFKC-normalised, case-folded runs of letters, marks and numbers.
 * Scripts written without spaces (CJK, Thai, …) yield one token per character so they still match.
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  const normalized = text.normalize('NFKC').toLocaleLowerCase();
  for (const match of normalized.matchAll(/[\p{L}\p{M}\p{N}]+/gu)) {
    const word = match[0];
    if (
      /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Hangul}]/u.test(word)
    ) {
      for (const ch of word) tokens.push(ch);
    } else {
      tokens.push(word);
    }
  }
  return tokens;
}
