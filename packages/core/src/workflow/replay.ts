import { contentText } from '../events/content.js';
import type { Event, RouteValue } from '../events/event.js';
import { isPlainObject } from '../utils/json.js';
import { zod } from '../utils/zod.js';
import { REQUEST_INPUT } from './request-input.js';

/** A question (or other long-running call) a node run raised. */
export interface RecordedInterrupt {
  id: string;
  /** The call's function name: `adk_request_input`, or a long-running tool's. */
  name: string;
  /** `response_schema` of an `adk_request_input` call. */
  responseSchema: Record<string, unknown> | undefined;
  /** Index in the session's events of the event that raised it. */
  index: number;
}

export interface RecordedCompletion {
  index: number;
  route: RouteValue | RouteValue[] | undefined;
}

export interface RecordedAnswer {
  value: unknown;
  index: number;
}

type Checked = { ok: true; value: unknown } | { ok: false; issues: string };

const schemaCache = new Map<
  string,
  { safeParse(v: unknown): { success: boolean; data?: unknown; error?: { message: string } } }
>();

/** Checks a reply against a recorded JSON Schema; a bare value may come wrapped as `{ result }`. */
export function checkReply(schema: Record<string, unknown> | undefined, response: unknown): Checked {
  const unwrapped =
    isPlainObject(response) && Object.keys(response).length === 1 && 'result' in response
      ? response.result
      : response;
  if (!schema) return { ok: true, value: unwrapped };
  const key = JSON.stringify(schema);
  let validator = schemaCache.get(key);
  if (!validator) {
    try {
      validator = zod().z.fromJSONSchema(schema as never) as never;
    } catch {
      // A schema zod cannot read still tells the client what to send; the reply is not checked.
      return { ok: true, value: unwrapped };
    }
    // Schemas are usually a few per app; a bound keeps generated ones from piling up.
    if (schemaCache.size >= 256) schemaCache.clear();
    schemaCache.set(key, validator as never);
  }
  const direct = (validator as NonNullable<typeof validator>).safeParse(response);
  if (direct.success) return { ok: true, value: direct.data };
  if (unwrapped !== response) {
    const inner = (validator as NonNullable<typeof validator>).safeParse(unwrapped);
    if (inner.success) return { ok: true, value: inner.data };
  }
  return { ok: false, issues: direct.error?.message ?? 'does not match the schema' };
}

/**
 * What one invocation's events say about its workflow runs (the log is the journal): which node
 * runs completed (with their outputs and routes), which questions they asked, and the answers
 * given since. Built once when a workflow starts or resumes.
 */
export class ReplayIndex {
  readonly completions = new Map<string, RecordedCompletion>();
  /** Outputs by node path: the latest event whose `outputFor` lists the path and carries one. */
  readonly outputs = new Map<string, unknown>();
  readonly interrupts = new Map<string, RecordedInterrupt[]>();
  /** Interrupt (function-call) id → the latest path that raised it. */
  readonly interruptOwner = new Map<string, string>();
  /** Function-response id → latest valid answer in a user event of this invocation. */
  readonly answers = new Map<string, RecordedAnswer>();
  /** Node paths that already have their input turn committed (agent nodes). */
  readonly inputTurns = new Set<string>();
  /** The text of the user message that started the invocation. */
  startText: string | undefined;
  readonly empty: boolean;

  /**
   * `resumed`: the invocation continues an earlier turn (its events may lie anywhere in the log);
   * otherwise they are the log's tail and only that is read, so a fresh run costs the same on a long
   * session as on a new one.
   */
  constructor(events: readonly Event[], invocationId: string, resumed = true) {
    let seen = false;
    const requestSchemas = new Map<string, Record<string, unknown> | undefined>();
    let first = 0;
    if (!resumed) {
      first = events.length;
      while (first > 0 && (events[first - 1] as Event).invocationId === invocationId) first--;
    }
    for (let i = first; i < events.length; i++) {
      const event = events[i] as Event;
      if (event.invocationId !== invocationId) continue;
      const info = event.nodeInfo;
      if (event.author === 'user') {
        if (info) {
          this.inputTurns.add(info.path);
          continue;
        }
        if (this.startText === undefined) {
          const text = contentText(event.content);
          if (text) this.startText = text;
        }
        for (const part of event.content?.parts ?? []) {
          const r = part.functionResponse;
          if (!r) continue;
          if (r.name === REQUEST_INPUT) {
            const checked = checkReply(requestSchemas.get(r.id), r.response);
            if (!checked.ok) continue;
            this.answers.set(r.id, { value: checked.value, index: i });
          } else this.answers.set(r.id, { value: r.response, index: i });
        }
        continue;
      }
      if (!info) continue;
      seen = true;
      if (event.output !== undefined)
        for (const path of info.outputFor ?? [info.path]) this.outputs.set(path, event.output);
      if (info.outputFor?.includes(info.path))
        this.completions.set(info.path, { index: i, route: event.actions.route });
      const ids = event.longRunningToolIds;
      if (ids && ids.length > 0) {
        const list = this.interrupts.get(info.path) ?? [];
        for (const part of event.content?.parts ?? []) {
          const call = part.functionCall;
          if (!call || !ids.includes(call.id)) continue;
          const schema =
            call.name === REQUEST_INPUT && isPlainObject(call.args.response_schema)
              ? call.args.response_schema
              : undefined;
          requestSchemas.set(call.id, schema);
          list.push({ id: call.id, name: call.name, responseSchema: schema, index: i });
          this.interruptOwner.set(call.id, info.path);
        }
        this.interrupts.set(info.path, list);
      }
    }
    this.empty = !seen;
  }

  /** The answer to an interrupt, if one came after it was raised. */
  answerTo(interrupt: RecordedInterrupt): RecordedAnswer | undefined {
    const answer = this.answers.get(interrupt.id);
    return answer && answer.index > interrupt.index ? answer : undefined;
  }

  /** The interrupts a not-yet-completed run is waiting on (the ones after its last attempt started). */
  openInterrupts(path: string): RecordedInterrupt[] {
    if (this.completions.has(path)) return [];
    return this.interrupts.get(path) ?? [];
  }
}
