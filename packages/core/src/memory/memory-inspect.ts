import type { MemoryEntry, MemoryKind, MemoryService, SearchMemoryParams } from './memory-service.js';

/**
 * Optional, read-only inspection methods of a memory store, for tools such as the dev UI's Memory
 * tab. Every built-in store implements them; a store without them is still a `MemoryService`.
 */

/** One search's rankings, kept apart (docs/decisions/0070-memory-inspection.md). */
export interface MemorySearchExplanation {
  /** The full-text (keyword) ranking alone, best first; `score` is the ranker's own. */
  fullText: MemoryEntry[];
  /** The vector ranking alone, best first; `undefined` when the store has no vector search. */
  vector?: MemoryEntry[];
  /** What `searchMemory` answers for the same parameters (fused, facts first). */
  fused: MemoryEntry[];
}

export interface ListMemoriesParams {
  appName: string;
  userId: string;
  /** Kinds listed (default: all). */
  kinds?: readonly MemoryKind[];
  /** Most entries, newest first (default 100). */
  limit?: number;
  signal?: AbortSignal;
}

export interface InspectableMemoryService extends MemoryService {
  /** The rankings of one search, each one apart, with the fused answer. */
  explainSearch(params: SearchMemoryParams): Promise<MemorySearchExplanation>;
  /** A user's memories, newest first, superseded facts included. */
  listMemories(params: ListMemoriesParams): Promise<MemoryEntry[]>;
}

/** Whether a memory service has the inspection methods. */
export function isInspectableMemory(memory: MemoryService | undefined): memory is InspectableMemoryService {
  const m = memory as Partial<InspectableMemoryService> | undefined;
  return typeof m?.explainSearch === 'function' && typeof m.listMemories === 'function';
}
