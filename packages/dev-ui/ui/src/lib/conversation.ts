import type { AdkEvent, FunctionCall, Part } from '../api/types.js';

export const REQUEST_CONFIRMATION = 'adk_request_confirmation';

export function functionCalls(event: AdkEvent): FunctionCall[] {
  return (event.content?.parts ?? []).flatMap((p) => (p.functionCall ? [p.functionCall] : []));
}

/** Function-response ids seen in a list of events. */
export function answeredCallIds(events: AdkEvent[]): Set<string> {
  const ids = new Set<string>();
  for (const e of events)
    for (const p of e.content?.parts ?? []) if (p.functionResponse?.id) ids.add(p.functionResponse.id);
  return ids;
}

/** Confirmation requests that no later event has answered: the run is paused on them. */
export function pendingConfirmations(events: AdkEvent[]): Set<string> {
  const answered = answeredCallIds(events);
  const pending = new Set<string>();
  for (const e of events)
    for (const call of functionCalls(e))
      if (call.name === REQUEST_CONFIRMATION && call.id && !answered.has(call.id)) pending.add(call.id);
  return pending;
}

/** Whether a tool result reports a failure (ADK puts `{error: ...}` in the response). */
export function isErrorResponse(part: Part): boolean {
  const r = part.functionResponse?.response;
  return !!r && typeof r === 'object' && 'error' in r && r.error !== undefined && r.error !== null;
}

/** In-flight streamed text, one bubble per agent and branch of the running invocation. */
export interface StreamingBubble {
  key: string;
  author: string;
  text: string;
  thought: string;
  chunks: number;
}

export function streamKey(e: AdkEvent): string {
  return `${e.invocationId ?? ''}|${e.author}|${e.branch ?? ''}`;
}

export interface UsageTotals {
  prompt: number;
  candidates: number;
  total: number;
  steps: number;
}

export function usageTotals(events: AdkEvent[]): UsageTotals {
  const t: UsageTotals = { prompt: 0, candidates: 0, total: 0, steps: 0 };
  for (const e of events) {
    const u = e.usageMetadata;
    if (!u || e.partial) continue;
    t.steps++;
    t.prompt += u.promptTokenCount ?? 0;
    t.candidates += u.candidatesTokenCount ?? 0;
    t.total += u.totalTokenCount ?? (u.promptTokenCount ?? 0) + (u.candidatesTokenCount ?? 0);
  }
  return t;
}
