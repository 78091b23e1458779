import type { InvocationContext } from '../agents/invocation-context.js';
import type { Content, Part } from '../events/content.js';
import type { Event } from '../events/event.js';
import { visibleEvents } from '../sessions/visible-events.js';
import { presentOtherAgentTurn, TRANSFER_TOOL_NAME } from './adk-prompts.js';

export type IncludeContents = 'default' | 'none';

/** Function-call names the framework uses between itself and the user, never sent to models. */
export const INTERNAL_FUNCTION_NAMES = new Set([
  'adk_request_confirmation',
  'adk_request_credential',
  'adk_request_input',
]);

/** Whether an event on `eventBranch` is visible from `branch` (same branch or an ancestor of it). */
export function isVisibleFromBranch(eventBranch: string | undefined, branch: string | undefined): boolean {
  if (!eventBranch || !branch) return true;
  return branch === eventBranch || branch.startsWith(`${eventBranch}.`);
}

function stripInternal(content: Content): Content | undefined {
  let changed = false;
  const parts: Part[] = [];
  for (const part of content.parts) {
    const name = part.functionCall?.name ?? part.functionResponse?.name;
    if (name && INTERNAL_FUNCTION_NAMES.has(name)) {
      changed = true;
      continue;
    }
    parts.push(part);
  }
  if (!changed) return content;
  return parts.length > 0 ? { ...content, parts } : undefined;
}

/**
 * Whether a part gives the model nothing (ADK leaves events made only of such parts out): no text,
 * data, call or response, or a thought (unless it carries a signature the model needs back).
 */
function isInvisible(part: Part): boolean {
  if (part.functionCall || part.functionResponse || part.thoughtSignature) return false;
  if (part.thought) return true;
  return !(part.text || part.inlineData || part.fileData || part.executableCode || part.codeExecutionResult);
}

/**
 * Applies the latest compaction visible from `branch`: its summary stands in for the events it
 * covers (by timestamp) that its own branch could see; compaction events themselves are not sent.
 */
function applyCompactions(events: Event[], branch: string | undefined): Event[] {
  let latest: Event | undefined;
  for (const e of events) if (e.actions.compaction && isVisibleFromBranch(e.branch, branch)) latest = e;
  // Compaction events carry no content, so without one to apply the log is used as it is.
  if (!latest?.actions.compaction) return events;
  const { startTimestamp, endTimestamp, compactedContent } = latest.actions.compaction;
  const out: Event[] = [];
  let inserted = false;
  for (const e of events) {
    if (e.actions.compaction) continue;
    const covered =
      e.timestamp >= startTimestamp &&
      e.timestamp <= endTimestamp &&
      isVisibleFromBranch(e.branch, latest.branch);
    if (!covered) {
      out.push(e);
      continue;
    }
    if (!inserted) {
      out.push({
        ...latest,
        author: 'user',
        actions: { stateDelta: {}, artifactDelta: {} },
        content: {
          role: 'user',
          parts: [{ text: 'Summary of the earlier conversation:' }, ...compactedContent.parts],
        },
      });
      inserted = true;
    }
  }
  return out;
}

function isResponsesOnly(content: Content): boolean {
  return content.parts.length > 0 && content.parts.every((p) => p.functionResponse);
}

/**
 * Puts every function call's responses in one user turn right after the call (responses can
 * arrive in later turns: a confirmed or long-running call), answers calls that never got a
 * response with an error response, and drops responses whose call is not in the history.
 * Vendors reject histories where calls and responses do not pair up.
 */
export function pairCallsWithResponses(contents: Content[]): Content[] {
  if (wellPaired(contents)) return contents;
  const responses = new Map<string, Part>();
  for (const c of contents)
    for (const p of c.parts) if (p.functionResponse) responses.set(p.functionResponse.id, p);
  const out: Content[] = [];
  for (const c of contents) {
    if (isResponsesOnly(c)) continue;
    const kept = c.parts.some((p) => p.functionResponse)
      ? { ...c, parts: c.parts.filter((p) => !p.functionResponse) }
      : c;
    out.push(kept);
    if (c.role !== 'model') continue;
    const answers: Part[] = [];
    for (const p of c.parts) {
      const call = p.functionCall;
      if (!call) continue;
      answers.push(
        responses.get(call.id) ?? {
          functionResponse: {
            id: call.id,
            name: call.name,
            response: { error: 'No response was received for this call.' },
          },
        },
      );
    }
    if (answers.length > 0) out.push({ role: 'user', parts: answers });
  }
  return out;
}

/**
 * Whether every model turn's calls are answered, exactly and in full, by the next content and no
 * response stands anywhere else — the common case, checked without allocating.
 */
function wellPaired(contents: Content[], start = 0): boolean {
  for (let i = start; i < contents.length; i++) {
    const c = contents[i] as Content;
    let calls = 0;
    let responses = 0;
    for (const p of c.parts) {
      if (p.functionCall) calls++;
      else if (p.functionResponse) responses++;
    }
    if (responses > 0) return false; // responses are only visited right after their call below
    if (calls === 0) continue;
    if (c.role !== 'model') return false;
    const next = contents[i + 1];
    if (!next || next.parts.length !== calls) return false;
    let k = 0;
    for (const p of c.parts) {
      if (!p.functionCall) continue;
      if (next.parts[k]?.functionResponse?.id !== p.functionCall.id) return false;
      k++;
    }
    i++; // the responses just checked
  }
  return true;
}

/** A transfer: its call, or the response that carries the transfer action. */
function isTransfer(event: Event): boolean {
  return (
    event.actions.transferToAgent !== undefined ||
    (event.content?.parts.some((p) => p.functionCall?.name === TRANSFER_TOOL_NAME) ?? false)
  );
}

/** A tool result the user posted back (a long-running tool finished): it continues a turn. */
function isSubmittedResult(event: Event): boolean {
  return event.author === 'user' && (event.content?.parts.some((p) => p.functionResponse) ?? false);
}

/**
 * Where the current turn starts, as ADK finds it for `includeContents: 'none'`: the latest event
 * sent to the model that the user or another agent authored, other than a transfer or a posted-back
 * tool result — and never after a call whose posted-back result is in the turn. -1 when none.
 */
function currentTurnStart(events: Event[], agentName: string, branch: string | undefined): number {
  const unmatched = new Set<string>();
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as Event;
    for (const p of event.content?.parts ?? []) if (p.functionCall) unmatched.delete(p.functionCall.id);
    const submitted = isSubmittedResult(event);
    if (submitted)
      for (const p of event.content?.parts ?? [])
        if (p.functionResponse) unmatched.add(p.functionResponse.id);
    if (
      unmatched.size === 0 &&
      !submitted &&
      event.author !== agentName &&
      !event.partial &&
      event.content &&
      !event.content.parts.every(isInvisible) &&
      isVisibleFromBranch(event.branch, branch) &&
      stripInternal(event.content) &&
      !isTransfer(event)
    )
      return i;
  }
  return -1;
}

/** Adds one event's turn to the history being built (re-phrasing other agents' turns). */
function addEvent(
  event: Event,
  agentName: string,
  branch: string | undefined,
  contents: Content[],
  rephrased: Set<string>,
): void {
  if (event.partial || !event.content || event.content.parts.every(isInvisible)) return;
  if (!isVisibleFromBranch(event.branch, branch)) return;
  const content = stripInternal(event.content);
  if (!content) return;
  let answersRephrased = false;
  if (rephrased.size > 0) {
    for (const p of content.parts) {
      if (p.functionResponse && rephrased.has(p.functionResponse.id)) {
        answersRephrased = true;
        break;
      }
    }
  }
  if (event.author === agentName || (event.author === 'user' && !answersRephrased)) {
    contents.push(content);
  } else {
    for (const p of content.parts) if (p.functionCall) rephrased.add(p.functionCall.id);
    const context = presentOtherAgentTurn(event.author, content);
    if (context) contents.push(context);
  }
}

/**
 * The history built so far for one agent and branch over a session's log, up to the `count`th
 * event (`last`): the log only grows, so the next request of the same conversation (the next step,
 * the next turn) only adds the events after it (docs/architecture.md §6: per-turn cost must not
 * grow with the session beyond building the request). Logs with compactions are built in full.
 */
interface HistoryCache {
  agentName: string;
  branch: string | undefined;
  last: Event;
  count: number;
  contents: Content[];
  rephrased: Set<string>;
  /** `contents[0, paired)` is known to pair every call with its responses (checked once). */
  paired: number;
}
/**
 * Caches by the first event of the log: one entry per conversation, not one per step (a weak map
 * entry per step kept the garbage collector busy in long and concurrent runs).
 */
const historyCaches = new WeakMap<Event, HistoryCache[]>();
/** Caches kept per conversation (agents × branches, and logs forked from it). */
const MAX_CACHES_PER_LOG = 16;

function takeCache(
  list: HistoryCache[] | undefined,
  events: Event[],
  agentName: string,
  branch: string | undefined,
): HistoryCache | undefined {
  if (!list) return undefined;
  for (let i = list.length - 1; i >= 0; i--) {
    const c = list[i] as HistoryCache;
    if (c.agentName !== agentName || c.branch !== branch) continue;
    // The same log up to the cached event: events are immutable and only ever appended.
    if (c.count > events.length || events[c.count - 1] !== c.last) continue;
    list.splice(i, 1);
    return c;
  }
  return undefined;
}

/** Whether `addEvent` gives an event a place in the history of `branch`. */
function inHistory(event: Event, branch: string | undefined): boolean {
  if (event.partial || !event.content || event.content.parts.every(isInvisible)) return false;
  if (!isVisibleFromBranch(event.branch, branch)) return false;
  return stripInternal(event.content) !== undefined;
}

function responseIds(event: Event): string[] {
  const ids: string[] = [];
  for (const p of event.content?.parts ?? []) if (p.functionResponse) ids.push(p.functionResponse.id);
  return ids;
}

/**
 * Whether the newest event of the history answers a call made before the event just ahead of it
 * (a long-running call answered later): then the request is rearranged (`rearrangeLatestResponse`).
 * Cheap for the common turn, which ends with a user message or the response to the call before it.
 */
function answersEarlierCall(events: readonly Event[], branch: string | undefined): boolean {
  let i = events.length - 1;
  while (i >= 0 && !inHistory(events[i] as Event, branch)) i--;
  if (i < 1) return false;
  const ids = responseIds(events[i] as Event);
  if (ids.length === 0) return false;
  let j = i - 1;
  while (j >= 0 && !inHistory(events[j] as Event, branch)) j--;
  if (j < 0) return false;
  const calls = new Set<string>();
  for (const p of (events[j] as Event).content?.parts ?? []) if (p.functionCall) calls.add(p.functionCall.id);
  return !ids.some((id) => calls.has(id));
}

/** The newest of the agent's own events before `before` that makes the call `id`, or -1. */
function owningCall(events: readonly Event[], own: readonly boolean[], id: string, before: number): number {
  for (let i = before - 1; i >= 0; i--) {
    if (!own[i]) continue;
    for (const p of (events[i] as Event).content?.parts ?? []) if (p.functionCall?.id === id) return i;
  }
  return -1;
}

/**
 * Which events keep their calls and responses in this agent's history: its own and the user's,
 * except a user's answer to another agent's call. The others are re-phrased as text (`addEvent`)
 * before ADK rearranges anything, so they neither own nor answer calls here.
 */
function ownTurns(events: readonly Event[], agentName: string): boolean[] {
  const callAuthor = new Map<string, string>();
  return events.map((e) => {
    const parts = e.content?.parts ?? [];
    for (const p of parts) if (p.functionCall) callAuthor.set(p.functionCall.id, e.author);
    if (e.author === agentName) return true;
    if (e.author !== 'user') return false;
    return !parts.some((p) => {
      const author = p.functionResponse && callAuthor.get(p.functionResponse.id);
      return author !== undefined && author !== agentName && author !== 'user';
    });
  });
}

function withParts(event: Event, parts: Part[]): Event {
  return { ...event, content: { role: event.content?.role ?? 'user', parts } };
}

/** ADK's merge of response events: later responses replace earlier ones of the same call. */
function mergeResponseEvents(events: Event[]): Event {
  const first = events[0] as Event;
  const parts = [...(first.content?.parts ?? [])];
  const at = new Map<string, number>();
  parts.forEach((p, i) => {
    if (p.functionResponse) at.set(p.functionResponse.id, i);
  });
  for (const event of events.slice(1)) {
    for (const p of event.content?.parts ?? []) {
      const id = p.functionResponse?.id;
      const index = id === undefined ? undefined : at.get(id);
      if (index !== undefined) parts[index] = p;
      else {
        if (id !== undefined) at.set(id, parts.length);
        parts.push(p);
      }
    }
  }
  return withParts(first, parts);
}

/**
 * ADK's rearrangement when the newest event answers earlier calls (adk-python's
 * `rearrange_events_for_latest_function_response`): the history stops at the latest answered call;
 * after each answered call comes one merged response (its earlier responses, such as a
 * long-running tool's interim result, replaced by the newest); the events in between are left out
 * of this request. The session keeps every event.
 */
function rearrangeLatestResponse(
  all: readonly Event[],
  branch: string | undefined,
  agentName: string,
): Event[] {
  const events = all.filter((e) => inHistory(e, branch));
  const own = ownTurns(events, agentName);
  const last = events.length - 1;
  const trailing = events[last];
  if (!trailing || last < 1 || !own[last]) return events;
  const partsByCall = new Map<number, Part[]>();
  const others: Part[] = [];
  for (const p of trailing.content?.parts ?? []) {
    if (!p.functionResponse) {
      others.push(p);
      continue;
    }
    const owner = owningCall(events, own, p.functionResponse.id, last);
    if (owner < 0) continue; // an orphan: dropped, as ADK does
    const list = partsByCall.get(owner) ?? [];
    list.push(p);
    partsByCall.set(owner, list);
  }
  if (partsByCall.size === 0) return events;
  const latestCall = Math.max(...partsByCall.keys());
  partsByCall.get(latestCall)?.push(...others);
  if (latestCall === last - 1 && partsByCall.size === 1) return events;

  const owns = (part: Part, index: number, call: number) =>
    part.functionResponse !== undefined && owningCall(events, own, part.functionResponse.id, index) === call;
  const merged = (call: number): Event => {
    const answers: Event[] = [];
    for (let i = call + 1; i < last; i++) {
      if (!own[i]) continue;
      const e = events[i] as Event;
      const parts = e.content?.parts ?? [];
      if (!parts.some((p) => p.functionResponse)) continue;
      const isCall = parts.some((p) => p.functionCall);
      const matched = parts.filter((p) => (p.functionResponse ? owns(p, i, call) : !isCall));
      if (matched.some((p) => p.functionResponse))
        answers.push(matched.length === parts.length ? e : withParts(e, matched));
    }
    answers.push(withParts(trailing, partsByCall.get(call) ?? []));
    return answers.length > 1 ? mergeResponseEvents(answers) : (answers[0] as Event);
  };
  const out: Event[] = [];
  for (let i = 0; i <= latestCall; i++) {
    let e = events[i] as Event;
    const parts = e.content?.parts ?? [];
    if (own[i] && parts.some((p) => p.functionResponse)) {
      const kept = parts.filter(
        (p) => !p.functionResponse || !partsByCall.has(owningCall(events, own, p.functionResponse.id, i)),
      );
      if (!kept.some((p) => p.functionResponse || p.functionCall)) continue;
      if (kept.length !== parts.length) e = withParts(e, kept);
    }
    out.push(e);
    if (partsByCall.has(i)) out.push(merged(i));
  }
  return out;
}

/** The history an LlmAgent sends: docs/architecture.md §4.4 "History". */
export function buildContents(
  ctx: InvocationContext,
  agentName: string,
  include: IncludeContents,
): Content[] {
  const all = visibleEvents(ctx.session.events);
  const rearrange = answersEarlierCall(all, ctx.branch);
  if (include === 'default' && all.length > 0 && !rearrange) {
    const branch = ctx.branch;
    const first = all[0] as Event;
    const list = historyCaches.get(first);
    const cache = takeCache(list, all, agentName, branch) ?? {
      agentName,
      branch,
      last: first,
      count: 0,
      contents: [],
      rephrased: new Set<string>(),
      paired: 0,
    };
    let compacted = false;
    for (let i = cache.count; i < all.length; i++) {
      if ((all[i] as Event).actions.compaction) {
        compacted = true;
        break;
      }
    }
    if (!compacted) {
      for (let i = cache.count; i < all.length; i++)
        addEvent(all[i] as Event, agentName, branch, cache.contents, cache.rephrased);
      cache.count = all.length;
      cache.last = all[all.length - 1] as Event;
      if (!list) historyCaches.set(first, [cache]);
      else {
        if (list.length >= MAX_CACHES_PER_LOG) list.shift();
        list.push(cache);
      }
      // A copy: hooks may edit the request's contents; the cache must not see that.
      const contents = cache.contents.slice();
      if (wellPaired(contents, cache.paired)) {
        cache.paired = contents.length;
        return contents;
      }
      return pairCallsWithResponses(contents);
    }
  }
  let events = all;
  if (include === 'none') {
    const start = currentTurnStart(events, agentName, ctx.branch);
    events = start >= 0 ? events.slice(start) : [];
  }
  events = applyCompactions(events, ctx.branch);
  if (rearrange) events = rearrangeLatestResponse(events, ctx.branch, agentName);
  const contents: Content[] = [];
  // Calls of other agents are re-phrased as text; so must be the responses that answer them.
  const rephrased = new Set<string>();
  for (const event of events) addEvent(event, agentName, ctx.branch, contents, rephrased);
  return pairCallsWithResponses(contents);
}
