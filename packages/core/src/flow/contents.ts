import type { InvocationContext } from '../agents/invocation-context.js';
import type { Content, Part } from '../events/content.js';
import type { Event } from '../events/event.js';

export type IncludeContents = 'default' | 'none';

/** Function-call names the framework uses between itself and the user, never sent to models. */
export const INTERNAL_FUNCTION_NAMES = new Set(['adk_request_confirmation', 'adk_request_credential']);

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

/** Another agent's turn, re-phrased as user-side context ("[agent] said: …"). */
function asContext(event: Event, content: Content): Content {
  const parts: Part[] = [{ text: 'For context:' }];
  for (const part of content.parts) {
    if (part.thought) continue;
    if (part.text !== undefined) parts.push({ text: `[${event.author}] said: ${part.text}` });
    else if (part.functionCall) {
      parts.push({
        text: `[${event.author}] called tool \`${part.functionCall.name}\` with parameters: ${JSON.stringify(part.functionCall.args)}`,
      });
    } else if (part.functionResponse) {
      parts.push({
        text: `[${event.author}] \`${part.functionResponse.name}\` tool returned result: ${JSON.stringify(part.functionResponse.response)}`,
      });
    } else parts.push(part);
  }
  return { role: 'user', parts };
}

/**
 * Applies compaction events: each one's summary stands in for the events it covers (by
 * timestamp); the compaction events themselves are not sent.
 */
function applyCompactions(events: Event[]): Event[] {
  let latest: Event | undefined;
  for (const e of events) if (e.actions.compaction) latest = e;
  if (!latest?.actions.compaction) return events;
  const { startTimestamp, endTimestamp, compactedContent } = latest.actions.compaction;
  const out: Event[] = [];
  let inserted = false;
  for (const e of events) {
    if (e.actions.compaction) continue;
    if (e.timestamp >= startTimestamp && e.timestamp <= endTimestamp) {
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
      continue;
    }
    out.push(e);
  }
  return out;
}

/** The history an LlmAgent sends: DESIGN §4 "history from the session". */
export function buildContents(
  ctx: InvocationContext,
  agentName: string,
  include: IncludeContents,
): Content[] {
  let events = ctx.session.events;
  if (include === 'none') {
    // Only the current turn: from the latest user message on.
    let start = events.length - 1;
    while (start >= 0 && (events[start] as Event).author !== 'user') start--;
    events = start >= 0 ? events.slice(start) : [];
  }
  events = applyCompactions(events);
  const contents: Content[] = [];
  for (const event of events) {
    if (event.partial || !event.content || event.content.parts.length === 0) continue;
    if (!isVisibleFromBranch(event.branch, ctx.branch)) continue;
    const content = stripInternal(event.content);
    if (!content) continue;
    if (event.author === 'user' || event.author === agentName || event.actions.compaction) {
      contents.push(content);
    } else {
      // Function responses belong to the agent that called; re-phrase other agents' turns.
      contents.push(asContext(event, content));
    }
  }
  return contents;
}
