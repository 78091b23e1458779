import { type AdkErrorCode, ConfigError, describeError } from '../errors/errors.js';
import { contentText } from '../events/content.js';
import { createEvent, type Event } from '../events/event.js';
import { isVisibleFromBranch } from '../flow/contents.js';
import type { Llm } from '../models/llm.js';
import { resolveModel } from '../models/registry.js';
import type { SessionService } from '../sessions/session.js';
import { visibleEvents } from '../sessions/visible-events.js';
import { newId } from '../utils/ids.js';
import type { MemoryJobHandler } from './jobs.js';
import type { MemoryEntry, MemoryService } from './memory-service.js';

/**
 * Observations (`memory.observe`): an observer model turns older history into dated, prioritised
 * bullets, written as a compaction event (the log stays whole; the model is sent the observations
 * and the recent tail) and as memories of kind `'observation'` that keep their source event ids.
 * A reflector compacts the observations again when they grow too large. The work runs beside the
 * turn, never on its response path (docs/decisions/0061-observations.md).
 */

/** `LlmAgent`'s `memory.observe` option. Token counts are estimated unless `countTokens` is given. */
export interface ObserveOptions {
  /** The model that writes (and reflects) observations (default: the agent's model). */
  model?: Llm | string;
  /** Observe once the history not yet observed holds this many tokens (default 30 000). */
  observeAtTokens?: number;
  /** Newest history kept as it is, out of the observation, in tokens (default a fifth of `observeAtTokens`). */
  keepRecentTokens?: number;
  /** Reflect (compact the observations again) once they hold this many tokens (default 40 000). */
  reflectAtTokens?: number;
  /** Token count of a text (default: about four characters a token). */
  countTokens?: (text: string) => number;
  /** Output shorter than this many characters is refused (default 20). */
  minChars?: number;
  /** Model calls one observation or reflection may take before it gives up (default 3). */
  maxAttempts?: number;
  /**
   * Back-off base in ms (default 1000): attempt n+1 waits `backoffMs·2^(n-1)`; after k failed
   * reflections in a row the next one is not tried before `backoffMs·2^k` has passed.
   */
  backoffMs?: number;
  /** Upper bound of any back-off (default 10 minutes). */
  maxBackoffMs?: number;
  /** System instruction of the observer (the default asks for the bullet format below). */
  instruction?: string;
  /** System instruction of the reflector. */
  reflectInstruction?: string;
}

export { RECALL_TOOL_NAME, recallTool } from './recall-tool.js';
/** Author of the events the observer writes. */
export const OBSERVER_AUTHOR = 'memory:observe';
/** `customMetadata` key of an observation's compaction event ({@link ObservationRecord}). */
export const OBSERVATION_METADATA_KEY = 'adkObservation';
/** `customMetadata` key of the event recording a refused observation ({@link ObservationFailure}). */
export const OBSERVATION_ERROR_METADATA_KEY = 'adkObservationError';
/** `errorCode` of the event recording a refused observation or reflection. */
export const OBSERVATION_REFUSED = 'MEMORY_OBSERVATION_REFUSED' satisfies AdkErrorCode;

/** What an observation's compaction event records. */
export interface ObservationRecord {
  /** The observation's id: its compaction event's id and its memory's id. */
  id: string;
  /** `'reflection'` when it compacted earlier observations again. */
  kind: 'observation' | 'reflection';
  /** Every original event it stands for. */
  eventIds: string[];
  /** Ids of the blocks the observation log holds after this event, oldest first. */
  blocks: string[];
  /** Reflections: the blocks it replaced. */
  merged?: string[];
}

/** Why output was refused. */
export type ObservationRefusal =
  | 'empty'
  | 'too_short'
  | 'repeated_lines'
  | 'not_smaller'
  | 'no_dates'
  | 'over_threshold'
  | 'model_error';

/** What the event recording a refused observation holds. */
export interface ObservationFailure {
  /** Which model failed: the observer or the reflector. */
  stage: 'observe' | 'reflect';
  /** Why the last attempt was refused. */
  reason: ObservationRefusal;
  /** Model calls made. */
  attempts: number;
  /** The last model error, for `model_error`. */
  error?: string;
}

const DEFAULT_OBSERVE_INSTRUCTION = [
  'You are the memory observer of an assistant. Turn the conversation below into observations the assistant will read instead of it.',
  'Write one bullet per line: "- <priority> <YYYY-MM-DD> <observation>", where priority is 🔴 (high: the user\'s facts, goals, constraints, decisions, commitments), 🟡 (medium: context, preferences, open questions) or 🟢 (low: small talk, details unlikely to matter).',
  'Keep names, numbers and dates exactly. Use the date of the message the observation comes from. Answer with the bullets only.',
].join('\n');

const DEFAULT_REFLECT_INSTRUCTION = [
  'You are the memory reflector of an assistant. Rewrite the observations below into a shorter list in the same format ("- <priority> <YYYY-MM-DD> <observation>", priorities 🔴 🟡 🟢).',
  'Merge related items, drop 🟢 items that no longer matter, keep every 🔴 item and its date, keep newer information where items conflict. Answer with the bullets only.',
].join('\n');

const OBSERVATIONS_PREAMBLE =
  'Observations of the earlier conversation, oldest first (🔴 high, 🟡 medium, 🟢 low priority). Each block starts with its id: call the `recall` tool with that id to read the original messages.';

const DATE = /\b\d{4}-\d{2}-\d{2}\b/;

interface Resolved {
  model: Llm;
  observeAt: number;
  keepRecent: number;
  reflectAt: number;
  count: (text: string) => number;
  minChars: number;
  maxAttempts: number;
  backoff: (n: number) => number;
  instruction: string;
  reflectInstruction: string;
}

function resolve(options: ObserveOptions, fallback?: Llm | string): Resolved {
  const model = options.model ?? fallback;
  if (model === undefined)
    throw new ConfigError('memory.observe needs a model (none given and the agent has none)');
  const at = observeAt(options);
  const base = Math.max(0, options.backoffMs ?? 1000);
  const cap = Math.max(0, options.maxBackoffMs ?? 600_000);
  return {
    model: resolveModel(model),
    observeAt: at,
    keepRecent: Math.max(0, options.keepRecentTokens ?? Math.floor(at / 5)),
    reflectAt: Math.max(1, options.reflectAtTokens ?? 40_000),
    count: options.countTokens ?? ((text) => Math.ceil(text.length / 4)),
    minChars: Math.max(1, options.minChars ?? 20),
    maxAttempts: Math.max(1, options.maxAttempts ?? 3),
    backoff: (n) => Math.min(cap, base * 2 ** Math.max(0, n - 1)),
    instruction: options.instruction ?? DEFAULT_OBSERVE_INSTRUCTION,
    reflectInstruction: options.reflectInstruction ?? DEFAULT_REFLECT_INSTRUCTION,
  };
}

function isoMinute(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** One event as dated transcript lines (text, calls and responses; thoughts left out). */
export function transcriptLines(event: Event): string[] {
  const lines: string[] = [];
  const at = isoMinute(event.timestamp);
  for (const p of event.content?.parts ?? []) {
    if (p.thought) continue;
    if (p.text?.trim()) lines.push(`[${at}] ${event.author}: ${p.text.trim()}`);
    else if (p.functionCall)
      lines.push(
        `[${at}] ${event.author} called ${p.functionCall.name}(${JSON.stringify(p.functionCall.args)})`,
      );
    else if (p.functionResponse)
      lines.push(
        `[${at}] ${p.functionResponse.name} returned ${JSON.stringify(p.functionResponse.response)}`,
      );
  }
  return lines;
}

function normaliseLine(line: string): string {
  return line.replace(/\s+/g, ' ').trim().toLowerCase();
}

/**
 * Why `output` is not acceptable as observations of `input`, or undefined when it is: empty,
 * shorter than `minChars`, made of repeated lines, not smaller than its input, or without a date
 * although its input had dates.
 */
export function checkObservations(
  output: string,
  input: string,
  options: { minChars?: number } = {},
): ObservationRefusal | undefined {
  const text = output.trim();
  if (!text) return 'empty';
  if (text.length < Math.max(1, options.minChars ?? 20)) return 'too_short';
  const lines = text
    .split('\n')
    .map(normaliseLine)
    .filter((l) => l !== '');
  const counts = new Map<string, number>();
  for (const l of lines) counts.set(l, (counts.get(l) ?? 0) + 1);
  if (lines.length >= 2 && (counts.size <= lines.length / 2 || [...counts.values()].some((n) => n >= 3)))
    return 'repeated_lines';
  if (text.length >= input.trim().length) return 'not_smaller';
  if (DATE.test(input) && !DATE.test(text)) return 'no_dates';
  return undefined;
}

function isObservationRecord(value: unknown): value is ObservationRecord {
  const v = value as Partial<ObservationRecord> | undefined;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.id === 'string' &&
    Array.isArray(v.eventIds) &&
    Array.isArray(v.blocks)
  );
}

/** The observation record of an event, when it is an observation's compaction event. */
export function observationOf(event: Event): ObservationRecord | undefined {
  const record = event.customMetadata?.[OBSERVATION_METADATA_KEY];
  return event.actions.compaction && isObservationRecord(record) ? record : undefined;
}

interface ObservationState {
  events: Event[];
  /** The latest compaction visible from the branch. */
  latest: Event | undefined;
  record: ObservationRecord | undefined;
  /** The observation log the latest compaction holds ('' without one). */
  log: string;
  /** Events with content after the latest compaction, oldest first. */
  uncovered: Event[];
}

export function stateOf(all: readonly Event[], branch: string | undefined): ObservationState {
  const events = visibleEvents(all).filter((e) => isVisibleFromBranch(e.branch, branch));
  let latest: Event | undefined;
  for (const e of events) if (e.actions.compaction) latest = e;
  const record = latest ? observationOf(latest) : undefined;
  const parts = latest?.actions.compaction?.compactedContent.parts ?? [];
  // Our compaction events hold the preamble and the log as two parts; another compactor's summary
  // is taken as the log as it is.
  const log = record ? (parts[1]?.text ?? '') : contentText(latest?.actions.compaction?.compactedContent);
  const end = latest?.actions.compaction?.endTimestamp ?? Number.NEGATIVE_INFINITY;
  const uncovered = events.filter(
    (e) =>
      !e.partial &&
      !e.actions.compaction &&
      e.timestamp > end &&
      !e.author.startsWith('memory:') &&
      transcriptLines(e).length > 0,
  );
  return { events, latest, record, log, uncovered };
}

export function tokensOf(r: Pick<Resolved, 'count'>, events: readonly Event[]): number {
  return r.count(events.flatMap(transcriptLines).join('\n'));
}

/** Whether the history not yet observed has reached the observation threshold. */
export function needsObservation(
  options: ObserveOptions,
  events: readonly Event[],
  branch?: string,
): boolean {
  return tokensOf(counter(options), stateOf(events, branch).uncovered) >= observeAt(options);
}

export function counter(options: ObserveOptions): Pick<Resolved, 'count'> {
  return { count: options.countTokens ?? ((text) => Math.ceil(text.length / 4)) };
}

export function observeAt(options: ObserveOptions): number {
  return Math.max(1, options.observeAtTokens ?? 30_000);
}

async function generate(model: Llm, system: string, text: string, signal: AbortSignal): Promise<string> {
  let out = '';
  for await (const r of model.generate(
    {
      model: model.model,
      systemInstruction: system,
      contents: [{ role: 'user', parts: [{ text }] }],
      config: {},
    },
    { signal },
  ))
    if (!r.partial) out = contentText(r.content);
  return out;
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

type Attempted = { ok: true; text: string } | { ok: false; failure: Omit<ObservationFailure, 'stage'> };

/** Up to `maxAttempts` model calls, backing off exponentially between them, until one passes `check`. */
async function attempt(
  r: Resolved,
  produce: (n: number, previous: ObservationRefusal | undefined) => Promise<string>,
  check: (output: string) => ObservationRefusal | undefined,
  signal: AbortSignal,
): Promise<Attempted> {
  let reason: ObservationRefusal = 'empty';
  let error: string | undefined;
  for (let n = 1; n <= r.maxAttempts; n++) {
    if (n > 1) await delay(r.backoff(n - 1), signal);
    let output: string;
    try {
      output = await produce(n, n > 1 ? reason : undefined);
    } catch (caught) {
      if (signal.aborted) throw caught;
      reason = 'model_error';
      error = describeError(caught);
      continue;
    }
    const refused = check(output);
    if (!refused) return { ok: true, text: output.trim() };
    reason = refused;
    error = undefined;
  }
  return { ok: false, failure: { reason, attempts: r.maxAttempts, ...(error ? { error } : {}) } };
}

/** What one observation pass produced, to be written in order: memories first, then events. */
export interface ObservationOutcome {
  /** Compaction events (an observation, then maybe a reflection) and/or an event recording a refusal. */
  events: Event[];
  /** Memories of kind `'observation'` to add. */
  memories: MemoryEntry[];
  /** Observation memories a reflection replaced (to delete). */
  replacedMemoryIds: string[];
  /** The compaction the pass started from (a later pass supersedes this outcome when it changed). */
  baseId: string | undefined;
}

/** What {@link observeEvents} reads. */
export interface ObserveEventsInput {
  /** The session's events. */
  events: readonly Event[];
  /** Recorded on the observation memories. */
  sessionId: string;
  /** Of the events written. */
  invocationId: string;
  /** The branch whose history is observed (default: the root). */
  branch?: string;
  signal?: AbortSignal;
  /** ms, for the reflector's back-off (default `Date.now()`). */
  now?: number;
  /** The model used when the options name none (the agent's). */
  defaultModel?: Llm | string;
}

function failureEvent(input: ObserveEventsInput, failure: ObservationFailure): Event {
  return createEvent({
    invocationId: input.invocationId,
    author: OBSERVER_AUTHOR,
    ...(input.branch !== undefined ? { branch: input.branch } : {}),
    errorCode: OBSERVATION_REFUSED,
    errorMessage: `The ${failure.stage === 'observe' ? 'observer' : 'reflector'}'s output was refused (${failure.reason}) after ${failure.attempts} attempt(s); nothing was replaced.`,
    customMetadata: { [OBSERVATION_ERROR_METADATA_KEY]: failure },
  });
}

function failureOf(event: Event): ObservationFailure | undefined {
  const f = event.customMetadata?.[OBSERVATION_ERROR_METADATA_KEY] as ObservationFailure | undefined;
  return event.errorCode === OBSERVATION_REFUSED && f && typeof f.stage === 'string' ? f : undefined;
}

function compactionEvent(
  input: ObserveEventsInput,
  id: string,
  range: { start: number; end: number },
  log: string,
  record: ObservationRecord,
): Event {
  return createEvent({
    id,
    invocationId: input.invocationId,
    author: OBSERVER_AUTHOR,
    ...(input.branch !== undefined ? { branch: input.branch } : {}),
    actions: {
      compaction: {
        startTimestamp: range.start,
        endTimestamp: range.end,
        compactedContent: { role: 'model', parts: [{ text: OBSERVATIONS_PREAMBLE }, { text: log }] },
      },
    },
    customMetadata: { [OBSERVATION_METADATA_KEY]: record },
  });
}

/**
 * One observation pass over a session's events: observes the history not yet observed when it has
 * reached `observeAtTokens` (keeping the newest `keepRecentTokens` out), then reflects when the
 * observation log has reached `reflectAtTokens` (unless earlier reflections failed and are backing
 * off). Refused output replaces nothing and yields an event recording the refusal. The session is
 * not changed: the caller writes the outcome.
 */
export async function observeEvents(
  options: ObserveOptions,
  input: ObserveEventsInput,
): Promise<ObservationOutcome> {
  const r = resolve(options, input.defaultModel);
  const signal = input.signal ?? new AbortController().signal;
  const state = stateOf(input.events, input.branch);
  const outcome: ObservationOutcome = {
    events: [],
    memories: [],
    replacedMemoryIds: [],
    baseId: state.latest?.id,
  };
  if (tokensOf(r, state.uncovered) < r.observeAt) return outcome;

  // Cover the oldest events, keeping the newest `keepRecent` tokens (never a response without its call).
  const { uncovered } = state;
  let cut = uncovered.length;
  let kept = 0;
  while (cut > 0 && kept < r.keepRecent) {
    cut--;
    kept += r.count(transcriptLines(uncovered[cut] as Event).join('\n'));
  }
  if (r.keepRecent === 0) cut = uncovered.length;
  while (cut > 0 && cut < uncovered.length && uncovered[cut]?.content?.parts.some((p) => p.functionResponse))
    cut--;
  const covered = uncovered.slice(0, cut);
  if (covered.length === 0) return outcome;

  const transcript = covered.flatMap(transcriptLines).join('\n');
  const context = state.log
    ? `Observations so far (context only, do not repeat them):\n${state.log}\n\n`
    : '';
  const observed = await attempt(
    r,
    (_n, previous) =>
      generate(
        r.model,
        r.instruction,
        `${context}Conversation to observe:\n${transcript}${previous ? `\n\nYour previous answer was refused (${previous}). Answer with dated bullets, shorter than the conversation.` : ''}`,
        signal,
      ),
    (out) => checkObservations(out, transcript, { minChars: r.minChars }),
    signal,
  );
  if (!observed.ok) {
    outcome.events.push(failureEvent(input, { stage: 'observe', ...observed.failure }));
    return outcome;
  }

  const first = covered[0] as Event;
  const last = covered.at(-1) as Event;
  const id = newId();
  const eventIds = covered.map((e) => e.id);
  const block = `[observation ${id} · ${isoDay(first.timestamp)}..${isoDay(last.timestamp)}]\n${observed.text}`;
  const log = state.log ? `${state.log}\n\n${block}` : block;
  const blocks = [...(state.record?.blocks ?? []), id];
  const range = {
    start: state.latest?.actions.compaction?.startTimestamp ?? first.timestamp,
    end: last.timestamp,
  };
  const observation = compactionEvent(input, id, range, log, { id, kind: 'observation', eventIds, blocks });
  outcome.events.push(observation);
  outcome.memories.push({
    id,
    kind: 'observation',
    content: { role: 'model', parts: [{ text: block }] },
    author: OBSERVER_AUTHOR,
    sessionId: input.sessionId,
    eventIds,
    timestamp: last.timestamp,
  });

  if (r.count(log) < r.reflectAt) return outcome;

  // Reflection, unless failed reflections since the last one are still backing off.
  const now = input.now ?? Date.now();
  let failures = 0;
  let lastFailure = 0;
  for (const e of state.events) {
    if (observationOf(e)?.kind === 'reflection') failures = 0;
    if (failureOf(e)?.stage === 'reflect') {
      failures++;
      lastFailure = e.timestamp;
    }
  }
  if (failures > 0 && now < lastFailure + r.backoff(failures + 1)) return outcome;

  const reflected = await attempt(
    r,
    (_n, previous) =>
      generate(
        r.model,
        r.reflectInstruction,
        `${log}${previous === 'over_threshold' ? `\n\nYour previous answer was still too long: stay under ${r.reflectAt} tokens (about ${r.reflectAt * 4} characters). Merge harder and drop 🟢 items.` : previous ? `\n\nYour previous answer was refused (${previous}).` : ''}`,
        signal,
      ),
    (out) =>
      checkObservations(out, log, { minChars: r.minChars }) ??
      (r.count(out) >= r.reflectAt ? 'over_threshold' : undefined),
    signal,
  );
  if (!reflected.ok) {
    outcome.events.push(failureEvent(input, { stage: 'reflect', ...reflected.failure }));
    return outcome;
  }
  const sources = new Map<string, string[]>();
  for (const e of [...state.events, observation]) {
    const rec = observationOf(e);
    if (rec) sources.set(rec.id, rec.eventIds);
  }
  const merged = blocks;
  const all = [...new Set(merged.flatMap((b) => sources.get(b) ?? []))];
  // Another compactor's summary folded into the log: its events are the ones before ours.
  if (state.latest && !state.record)
    for (const e of state.events)
      if (!e.actions.compaction && e.timestamp < first.timestamp && transcriptLines(e).length > 0)
        all.push(e.id);
  const rid = newId();
  const reflectedLog = `[reflection ${rid} · ${isoDay(range.start)}..${isoDay(range.end)}]\n${reflected.text}`;
  outcome.events.push(
    compactionEvent(input, rid, range, reflectedLog, {
      id: rid,
      kind: 'reflection',
      eventIds: all,
      blocks: [rid],
      merged,
    }),
  );
  outcome.memories.push({
    id: rid,
    kind: 'observation',
    content: { role: 'model', parts: [{ text: reflectedLog }] },
    author: OBSERVER_AUTHOR,
    sessionId: input.sessionId,
    eventIds: all,
    timestamp: range.end,
  });
  outcome.replacedMemoryIds.push(...merged);
  return outcome;
}

/**
 * Whether an outcome still applies to a session's events: the latest compaction is still the one it
 * started from and every event it covers is still visible (no rewind took them away).
 */
export function outcomeApplies(
  outcome: ObservationOutcome,
  events: readonly Event[],
  branch: string | undefined,
): boolean {
  const state = stateOf(events, branch);
  const present = new Set(state.events.map((e) => e.id));
  return (
    state.latest?.id === outcome.baseId &&
    outcome.events.every((e) => (observationOf(e)?.eventIds ?? []).every((id) => present.has(id)))
  );
}

export async function writeMemories(
  memory: MemoryService | undefined,
  scope: { appName: string; userId: string },
  outcome: ObservationOutcome,
  signal?: AbortSignal,
): Promise<void> {
  if (!memory?.addMemory) return;
  const { appName, userId } = scope;
  const kept = outcome.memories.filter((m) => !outcome.replacedMemoryIds.includes(m.id as string));
  if (kept.length > 0)
    await memory.addMemory({ appName, userId, memories: kept, ...(signal ? { signal } : {}) });
  const stale = outcome.replacedMemoryIds.filter((id) => !kept.some((m) => m.id === id));
  if (stale.length > 0 && memory.deleteMemories)
    await memory.deleteMemories({
      appName,
      userId,
      ids: stale,
      kinds: ['observation'],
      ...(signal ? { signal } : {}),
    });
}

/**
 * The `'observe'` job handler: runs {@link observeEvents} on each job's session and writes the
 * outcome (memories first, then the events appended to the session). Register it on a
 * `MemoryJobWorker` for kind `'observe'`; an agent with `memory.observe` enqueues an `'observe'` job
 * when its memory service has a job queue and the history has reached the threshold.
 */
export function observeMemoryJobHandler(
  options: ObserveOptions,
  services: { sessionService: SessionService; model?: Llm | string },
): MemoryJobHandler {
  return async (jobs, context) => {
    const seen = new Set<string>();
    for (const job of jobs) {
      if (!job.sessionId) continue;
      const branch = typeof job.payload?.branch === 'string' ? job.payload.branch : undefined;
      const key = `${job.appName}\u0000${job.userId}\u0000${job.sessionId}\u0000${branch ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const session = await services.sessionService.getSession({
        appName: job.appName,
        userId: job.userId,
        sessionId: job.sessionId,
      });
      if (!session) continue;
      const outcome = await observeEvents(options, {
        events: session.events,
        sessionId: session.id,
        invocationId: `observe-${job.id}`,
        ...(services.model !== undefined ? { defaultModel: services.model } : {}),
        ...(branch !== undefined ? { branch } : {}),
        signal: context.signal,
      });
      if (outcome.events.length === 0) continue;
      // The model ran without the lock; the append takes the session's run lock (when the store has
      // one) so it never lands in the middle of a run, and is dropped if the session moved on.
      const sessionKey = { appName: job.appName, userId: job.userId, sessionId: job.sessionId };
      const lock = await services.sessionService.acquireRunLock?.(sessionKey, {
        wait: true,
        signal: context.signal,
      });
      try {
        const current = await services.sessionService.getSession(sessionKey);
        if (!current || !outcomeApplies(outcome, current.events, branch)) continue;
        await writeMemories(context.memory, job, outcome, context.signal);
        for (const event of outcome.events) await services.sessionService.appendEvent(current, event);
      } finally {
        await lock?.release();
      }
    }
  };
}

/** The `recall` tool's answer (see `recall-tool.ts`): a page of the events an observation stands for. */
export function recallAnswer(
  args: Record<string, unknown>,
  events: readonly Event[],
): Record<string, unknown> {
  const a = args as { id?: unknown; offset?: unknown; limit?: unknown };
  const id = typeof a.id === 'string' ? a.id.trim() : '';
  const holder = events.find((e) => e.id === id && observationOf(e));
  const record = holder ? observationOf(holder) : undefined;
  if (!record) return { status: 'error', error: `No observation with id "${id}" in this conversation.` };
  const byId = new Map(events.map((e) => [e.id, e]));
  const sources = record.eventIds.map((eid) => byId.get(eid)).filter((e): e is Event => e !== undefined);
  const offset = Math.max(0, Number.isInteger(a.offset) ? (a.offset as number) : 0);
  const limit = Math.max(1, Math.min(500, Number.isInteger(a.limit) ? (a.limit as number) : 50));
  const page = sources.slice(offset, offset + limit);
  return {
    status: 'ok',
    id: record.id,
    kind: record.kind,
    total: sources.length,
    offset,
    ...(offset + limit < sources.length ? { nextOffset: offset + limit } : {}),
    ...(record.merged ? { merged: record.merged } : {}),
    events: page.map((e) => ({
      id: e.id,
      author: e.author,
      time: new Date(e.timestamp).toISOString(),
      text: transcriptLines(e)
        .map((l) => l.replace(/^\[[^\]]*\] /, ''))
        .join('\n'),
    })),
  };
}
