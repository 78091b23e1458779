// The server's memory routes for this tab (see @adk/server's README and ADR 0070). Declared here,
// not imported, so the bundle carries no server code.
import { apiFetch } from '../api/auth.js';
import { ApiError } from '../api/client.js';

export type MemoryKind = 'turn' | 'observation' | 'fact';

export interface MemoryItem {
  id?: string;
  kind?: MemoryKind;
  content: { role?: string; parts: { text?: string }[] };
  author?: string;
  timestamp?: number;
  score?: number;
  sessionId?: string;
  eventIds?: string[];
  validFrom?: number;
  supersedes?: string;
  keywords?: string[];
  ranks?: { fullText?: number; vector?: number };
}

export interface ProfileHistoryItem {
  eventId: string;
  invocationId: string;
  author: string;
  timestamp: number;
  value: unknown;
}

export interface ProfileView {
  agent: string;
  stateKey: string;
  scope: 'user' | 'session';
  format: 'json' | 'markdown';
  update: 'tool' | 'background';
  value: unknown;
  history: ProfileHistoryItem[];
}

export interface ObservationBlock {
  eventId: string;
  kind: 'observation' | 'reflection';
  timestamp: number;
  eventIds: string[];
  text: string;
  tokens: number;
}

export interface ObservationsView {
  agent: string;
  thresholds: { observeAtTokens: number; keepRecentTokens: number; reflectAtTokens: number };
  unobservedTokens: number;
  logTokens: number;
  failures: { eventId: string; timestamp: number; stage?: string; reason?: string }[];
  log: ObservationBlock[];
}

export interface RecallView {
  eventId: string;
  invocationId: string;
  author: string;
  timestamp: number;
  query: string;
  memories: {
    id?: string;
    kind: MemoryKind;
    sessionId?: string;
    eventIds?: string[];
    score?: number;
    ranker: 'fullText' | 'vector' | 'hybrid' | 'store';
    neighbours: number;
  }[];
  error?: { code: string; message: string };
}

export interface MemoryJobView {
  id: string;
  kind: string;
  status: 'pending' | 'running' | 'done' | 'failed';
  attempts: number;
  createdAt: number;
  lastError?: string;
  eventIds: string[];
}

export interface JobsView {
  stats: { pending: number; running: number; done: number; failed: number; nextRunAt?: number };
  byKind: Record<string, Record<string, number>>;
  failures: MemoryJobView[];
  recent: MemoryJobView[];
}

export interface MemorySnapshot {
  profile: ProfileView | null;
  observations: ObservationsView | null;
  recalls: RecallView[];
  facts: MemoryItem[] | null;
  jobs: JobsView | null;
}

export interface SearchRankings {
  fullText: MemoryItem[] | null;
  vector: MemoryItem[] | null;
  fused: MemoryItem[];
}

const enc = encodeURIComponent;

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await apiFetch(path, init);
  } catch {
    throw new ApiError(0, 'The ADK server cannot be reached. Is `adk web` still running?');
  }
  if (!res.ok) {
    const text = await res.text().catch(() => res.statusText);
    let message = text;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text;
    } catch {}
    throw new ApiError(res.status, `${res.status} ${message}`);
  }
  return (await res.json()) as T;
}

const base = (app: string, user: string) => `/dev/apps/${enc(app)}/users/${enc(user)}`;

export function memorySnapshot(app: string, user: string, session: string): Promise<MemorySnapshot> {
  return call(`${base(app, user)}/sessions/${enc(session)}/memory`);
}

/** An ordinary state-change event; resolves to its id and the profile it set. */
export function editProfile(
  app: string,
  user: string,
  session: string,
  value: unknown,
): Promise<{ eventId: string; value: unknown }> {
  return call(`${base(app, user)}/sessions/${enc(session)}/memory/profile`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ value }),
  });
}

export function searchRankings(app: string, user: string, q: string, limit = 10): Promise<SearchRankings> {
  const params = new URLSearchParams({ q, limit: String(limit) });
  return call(`${base(app, user)}/memory/search?${params}`);
}
