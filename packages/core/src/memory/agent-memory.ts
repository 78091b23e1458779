import type { InvocationContext } from '../agents/invocation-context.js';
import { type Content, contentText } from '../events/content.js';
import type { Event } from '../events/event.js';
import type { LlmRequest } from '../models/llm.js';
import type { Session } from '../sessions/session.js';
import { visibleEvents } from '../sessions/visible-events.js';
import type { FactsOptions } from './facts.js';
import type { MemoryEntry, MemoryKind } from './memory-service.js';
import type { ObserveOptions } from './observe.js';
import type { ProfileOptions } from './profile.js';

/** Key of the model-response event's `customMetadata` that records what per-turn recall added. */
export const RECALL_METADATA_KEY = 'adkMemoryRecall';

/** Per-turn recall: memories of the user's earlier turns placed before the newest user message. */
export interface RecallOptions {
  /** Hits kept (default 5). */
  topK?: number;
  /** Neighbouring turns of the same session shown with each hit, before and after (default 1). */
  neighbours?: number;
  /** Hits scoring below this are dropped. */
  minScore?: number;
  /** Kinds searched (default: all). Facts always come first. */
  kinds?: MemoryKind[];
}

/** `LlmAgent`'s `memory` option. Every feature is off unless given. */
export interface AgentMemoryOptions {
  /** `true` for the defaults of {@link RecallOptions}. */
  recall?: boolean | RecallOptions;
  /** Working memory: a profile kept in state and shown in the system instruction. */
  profile?: ProfileOptions;
  /** Observations: older history replaced by dated, prioritised bullets; adds the `recall` tool. */
  observe?: ObserveOptions;
  /** Facts extracted after each turn (one model call a turn; off by default). */
  facts?: FactsOptions;
}

/** One recalled memory as recorded in {@link RecallRecord}. */
export interface RecalledMemory {
  id?: string;
  kind: MemoryKind;
  sessionId?: string;
  eventIds?: string[];
  score?: number;
  /** `fullText`, `vector`, `hybrid` (both), or `store` when the store reports no ranks. */
  ranker: 'fullText' | 'vector' | 'hybrid' | 'store';
  neighbours: number;
}

/** What recall added to one model request (stored under {@link RECALL_METADATA_KEY}). */
export interface RecallRecord {
  query: string;
  memories: RecalledMemory[];
  /** Set when the store failed: the model is called without recall (the turn goes on). */
  error?: { code: string; message: string };
}

interface ResolvedRecall {
  topK: number;
  neighbours: number;
  minScore: number | undefined;
  kinds: MemoryKind[] | undefined;
}

function resolveRecall(option: boolean | RecallOptions | undefined): ResolvedRecall | undefined {
  if (!option) return undefined;
  const o = option === true ? {} : option;
  return {
    topK: Math.max(0, o.topK ?? 5),
    neighbours: Math.max(0, o.neighbours ?? 1),
    minScore: o.minScore,
    kinds: o.kinds,
  };
}

function isUserMessage(content: Content): boolean {
  return content.role === 'user' && !content.parts.some((p) => p.functionResponse);
}

function normalise(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

function rankerOf(entry: MemoryEntry): RecalledMemory['ranker'] {
  const r = entry.ranks;
  if (r?.fullText !== undefined && r.vector !== undefined) return 'hybrid';
  if (r?.fullText !== undefined) return 'fullText';
  if (r?.vector !== undefined) return 'vector';
  return 'store';
}

function dateLabel(timestamp: number | undefined): string {
  return timestamp === undefined ? 'undated' : new Date(timestamp).toISOString().slice(0, 10);
}

function line(entry: MemoryEntry): string {
  const who = entry.kind === 'fact' ? 'fact' : (entry.author ?? entry.content.role ?? 'unknown');
  return `[${dateLabel(entry.validFrom ?? entry.timestamp)}] ${who}: ${contentText(entry.content).trim()}`;
}

/**
 * Neighbours from the session log when the store returned none: the visible events around the
 * hit's event (found by id, else by timestamp and text).
 */
async function neighboursFromSession(
  ctx: InvocationContext,
  sessions: Map<string, Session | undefined>,
  hit: MemoryEntry,
  n: number,
): Promise<MemoryEntry[]> {
  if (!hit.sessionId || n <= 0) return [];
  let session = sessions.get(hit.sessionId);
  if (!sessions.has(hit.sessionId)) {
    session =
      hit.sessionId === ctx.session.id
        ? ctx.session
        : await ctx.sessionService.getSession({
            appName: ctx.appName,
            userId: ctx.userId,
            sessionId: hit.sessionId,
          });
    sessions.set(hit.sessionId, session);
  }
  if (!session) return [];
  const events = visibleEvents(session.events).filter((e) => contentText(e.content).trim() !== '');
  const text = contentText(hit.content);
  const at = events.findIndex((e) =>
    hit.eventIds?.length
      ? hit.eventIds.includes(e.id)
      : e.timestamp === hit.timestamp && contentText(e.content) === text,
  );
  if (at < 0) return [];
  const around: Event[] = [...events.slice(Math.max(0, at - n), at), ...events.slice(at + 1, at + 1 + n)];
  return around.map((e) => ({
    content: e.content as Content,
    author: e.author,
    timestamp: e.timestamp,
    sessionId: session.id,
    eventIds: [e.id],
  }));
}

/**
 * Searches the newest user message of `request` over the user's memories and, when something is
 * found that the request does not already hold, inserts ONE context block just before that message.
 * The session is not changed. Resolves to what was recalled, or undefined when nothing was added.
 */
export async function recallIntoRequest(
  option: boolean | RecallOptions | undefined,
  ctx: InvocationContext,
  request: LlmRequest,
): Promise<RecallRecord | undefined> {
  const opts = resolveRecall(option);
  const memory = ctx.memoryService;
  if (!opts || !memory || opts.topK === 0) return undefined;
  let at = -1;
  for (let i = request.contents.length - 1; i >= 0; i--) {
    if (isUserMessage(request.contents[i] as Content)) {
      at = i;
      break;
    }
  }
  if (at < 0) return undefined;
  const query = contentText(request.contents[at]).trim();
  if (!query) return undefined;

  let memories: MemoryEntry[];
  try {
    ({ memories } = await memory.searchMemory({
      appName: ctx.appName,
      userId: ctx.userId,
      query,
      scope: 'user',
      limit: opts.topK * 3 + request.contents.length,
      ...(opts.kinds ? { kinds: opts.kinds } : {}),
      ...(opts.neighbours > 0 ? { window: { before: opts.neighbours, after: opts.neighbours } } : {}),
      ...(opts.minScore !== undefined ? { minScore: opts.minScore } : {}),
      signal: ctx.signal,
    }));
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return {
      query,
      memories: [],
      error: {
        code: typeof code === 'string' ? code : 'MEMORY_RECALL_FAILED',
        message: error instanceof Error ? error.message : String(error),
      },
    };
  }

  const present = new Set(request.contents.map((c) => normalise(contentText(c))).filter((t) => t !== ''));
  const presentIds = new Set(ctx.session.events.map((e) => e.id));
  const inRequest = (m: MemoryEntry) =>
    present.has(normalise(contentText(m.content))) ||
    (m.sessionId === ctx.session.id && (m.eventIds ?? []).some((id) => presentIds.has(id)));

  // Facts first, then the store's order (stable sort).
  const ordered = memories
    .filter((m) => opts.minScore === undefined || (m.score ?? 0) >= opts.minScore)
    .map((m, i) => ({ m, i }))
    .sort((a, b) => Number(b.m.kind === 'fact') - Number(a.m.kind === 'fact') || a.i - b.i)
    .map(({ m }) => m);

  const sessions = new Map<string, Session | undefined>();
  const blocks: string[] = [];
  const record: RecallRecord = { query, memories: [] };
  const shown = new Set<string>();
  for (const hit of ordered) {
    if (record.memories.length >= opts.topK) break;
    if (inRequest(hit)) continue;
    const key = normalise(line(hit));
    if (shown.has(key)) continue;
    const neighbours =
      hit.neighbours ??
      (hit.kind === 'fact' ? [] : await neighboursFromSession(ctx, sessions, hit, opts.neighbours));
    const kept = neighbours.filter((n) => !inRequest(n));
    const before = kept.filter((n) => (n.timestamp ?? 0) <= (hit.timestamp ?? 0));
    const after = kept.filter((n) => (n.timestamp ?? 0) > (hit.timestamp ?? 0));
    const lines = [...before.map(line), `${line(hit)}`, ...after.map(line)];
    for (const l of lines) shown.add(normalise(l));
    blocks.push(lines.join('\n'));
    record.memories.push({
      ...(hit.id !== undefined ? { id: hit.id } : {}),
      kind: hit.kind ?? 'turn',
      ...(hit.sessionId !== undefined ? { sessionId: hit.sessionId } : {}),
      ...(hit.eventIds ? { eventIds: hit.eventIds } : {}),
      ...(hit.score !== undefined ? { score: hit.score } : {}),
      ranker: rankerOf(hit),
      neighbours: kept.length,
    });
  }
  if (blocks.length === 0) return undefined;
  const text = `<recalled_memory>\nFrom earlier conversations with this user (dated; not part of the current conversation):\n\n${blocks.join('\n\n')}\n</recalled_memory>`;
  const contents = request.contents.slice();
  contents.splice(at, 0, { role: 'user', parts: [{ text }] });
  request.contents = contents;
  return record;
}
