import type { Content } from '../events/content.js';
import type { Session } from '../sessions/session.js';

export interface MemoryEntry {
  content: Content;
  author?: string;
  /** ms */
  timestamp?: number;
  /** Relevance, higher is better. */
  score?: number;
  sessionId?: string;
}

export interface SearchMemoryParams {
  appName: string;
  userId: string;
  query: string;
  /** Maximum number of results (default 10). */
  limit?: number;
}

export interface SearchMemoryResult {
  memories: MemoryEntry[];
}

/** Long-term memory across sessions of a user. */
export interface MemoryService {
  addSessionToMemory(session: Session): Promise<void>;
  searchMemory(params: SearchMemoryParams): Promise<SearchMemoryResult>;
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
