// Graph workflows in the UI: where a run is (from the events' `nodeInfo`), the questions it waits
// on (`adk_request_input` calls), and forms built from a question's `response_schema`.
import type { AdkEvent, FunctionCall, JsonObject } from '../api/types.js';
import { answeredCallIds, functionCalls } from './conversation.js';

export const REQUEST_INPUT = 'adk_request_input';

/** `'wf@1/fan@2'` → `[{ name: 'wf', run: 1 }, { name: 'fan', run: 2 }]`. */
export function parseNodePath(path: string): { name: string; run: number }[] {
  return path
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      const at = segment.lastIndexOf('@');
      const run = at > 0 ? Number(segment.slice(at + 1)) : Number.NaN;
      return Number.isInteger(run) ? { name: segment.slice(0, at), run } : { name: segment, run: 1 };
    });
}

/** The node of the root graph an event belongs to (its path's second segment), if any. */
export function topNodeOf(event: AdkEvent): string | undefined {
  const path = event.nodeInfo?.path;
  return path ? parseNodePath(path)[1]?.name : undefined;
}

/** The arguments of an `adk_request_input` call. */
export interface RequestInputArgs {
  interruptId?: string;
  message?: string;
  payload?: unknown;
  response_schema?: unknown;
}

export interface OpenQuestion {
  call: FunctionCall & { id: string };
  args: RequestInputArgs;
  /** The node of the root graph that asked (from the event's `nodeInfo.path`). */
  node?: string;
  event: AdkEvent;
}

/** `adk_request_input` calls that no later event has answered: the workflow waits on them. */
export function openQuestions(events: AdkEvent[]): OpenQuestion[] {
  const answered = answeredCallIds(events);
  const open: OpenQuestion[] = [];
  for (const event of events) {
    for (const call of functionCalls(event)) {
      if (call.name !== REQUEST_INPUT || !call.id || answered.has(call.id)) continue;
      const node = topNodeOf(event);
      open.push({
        call: call as FunctionCall & { id: string },
        args: (call.args ?? {}) as RequestInputArgs,
        event,
        ...(node ? { node } : {}),
      });
    }
  }
  return open;
}

export function pendingRequestInputs(events: AdkEvent[]): Set<string> {
  return new Set(openQuestions(events).map((q) => q.call.id));
}

export type NodeStatus = 'active' | 'waiting' | 'done';

/**
 * What the Graph tab highlights: nodes that completed in the latest invocation (`done`), the node
 * of the latest event with a node path (`active`: running now, or the last to run, until the
 * workflow's output ends the run), and nodes with
 * an open question (`waiting`, which wins).
 */
export function workflowStatus(events: AdkEvent[]): Map<string, NodeStatus> {
  const status = new Map<string, NodeStatus>();
  const latest = events.findLast((e) => e.nodeInfo?.path);
  if (!latest) return status;
  for (const e of events) {
    if (e.invocationId !== latest.invocationId) continue;
    for (const path of e.nodeInfo?.outputFor ?? []) {
      const name = parseNodePath(path)[1]?.name;
      if (name) status.set(name, 'done');
    }
  }
  // A terminal node's event also carries the workflow's own output (a one-segment path): then the
  // run is over and no node is active.
  const current = topNodeOf(latest);
  const finished = (latest.nodeInfo?.outputFor ?? []).some((path) => parseNodePath(path).length === 1);
  if (current && !finished) status.set(current, 'active');
  for (const q of openQuestions(events)) if (q.node) status.set(q.node, 'waiting');
  return status;
}

/** A node's output, readable: text as is, anything else as indented JSON. */
export function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  try {
    return JSON.stringify(output, null, 2) ?? String(output);
  } catch {
    return String(output);
  }
}

// ---- Forms from JSON Schema --------------------------------------------------------------------

export type Field =
  | {
      kind: 'string' | 'number' | 'integer' | 'boolean';
      key: string;
      label: string;
      required: boolean;
      hint?: string;
    }
  | {
      kind: 'enum';
      key: string;
      label: string;
      required: boolean;
      hint?: string;
      options: (string | number)[];
    }
  | { kind: 'object'; key: string; label: string; required: boolean; hint?: string; fields: Field[] }
  | { kind: 'json'; key: string; label: string; required: boolean; hint?: string };

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A schema's type, looking through `anyOf: [X, {type: 'null'}]` (what optional/nullable fields become). */
function typeOf(schema: Schema): string | undefined {
  if (Array.isArray(schema.enum)) return 'enum';
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null') as string | undefined;
  return undefined;
}

function unwrap(schema: Schema): Schema {
  const options = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(options)) {
    const real = options.filter((o) => isSchema(o) && o.type !== 'null');
    if (real.length === 1 && isSchema(real[0]))
      return { ...real[0], ...(schema.description ? { description: schema.description } : {}) };
  }
  return schema;
}

function toField(key: string, raw: unknown, required: boolean, depth: number): Field {
  const schema = isSchema(raw) ? unwrap(raw) : {};
  const label = typeof schema.title === 'string' ? schema.title : key;
  const hint = typeof schema.description === 'string' ? schema.description : undefined;
  const base = { key, label, required, ...(hint ? { hint } : {}) };
  const type = typeOf(schema);
  if (type === 'enum') {
    const options = (schema.enum as unknown[]).filter(
      (o): o is string | number => typeof o === 'string' || typeof o === 'number',
    );
    if (options.length === (schema.enum as unknown[]).length && options.length > 0)
      return { ...base, kind: 'enum', options };
  }
  if (type === 'string' && schema.const === undefined) return { ...base, kind: 'string' };
  if (type === 'number' || type === 'integer' || type === 'boolean') return { ...base, kind: type };
  if (type === 'object' && isSchema(schema.properties) && depth < 3) {
    const req = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    return {
      ...base,
      kind: 'object',
      fields: Object.entries(schema.properties).map(([k, v]) => toField(k, v, req.has(k), depth + 1)),
    };
  }
  return { ...base, kind: 'json' };
}

/**
 * The form for a question: an object schema becomes one field per property (strings, numbers,
 * integers, booleans, enums as choices, nested objects as groups; anything else a JSON box); a
 * schema of another type is one field named `value`; no schema is one JSON box.
 */
export function formFromSchema(schema: unknown): Field {
  if (!isSchema(schema)) return { kind: 'json', key: 'value', label: 'Answer (JSON)', required: true };
  const field = toField('value', schema, true, 0);
  return field.kind === 'object' || field.kind === 'json'
    ? field
    : { ...field, label: field.hint ?? 'Answer' };
}

/** What a form holds while it is edited: text for text-like inputs, booleans for checkboxes. */
export type RawValue = string | boolean | { [key: string]: RawValue };

export function initialRaw(field: Field): RawValue {
  switch (field.kind) {
    case 'boolean':
      return false;
    case 'enum':
      return field.required ? String(field.options[0]) : '';
    case 'object':
      return Object.fromEntries(field.fields.map((f) => [f.key, initialRaw(f)]));
    case 'json':
      return field.required ? '{}' : '';
    default:
      return '';
  }
}

export type FormResult = { ok: true; value: unknown } | { ok: false; errors: Record<string, string> };

/**
 * Turns what the form holds into the reply: numbers parsed, empty optional fields left out, JSON
 * boxes parsed; errors are keyed by the field's dotted path.
 */
export function readForm(field: Field, raw: RawValue): FormResult {
  const errors: Record<string, string> = {};
  const read = (f: Field, value: RawValue, path: string): unknown => {
    switch (f.kind) {
      case 'boolean':
        return value === true;
      case 'object': {
        const obj = (typeof value === 'object' ? value : {}) as Record<string, RawValue>;
        const out: JsonObject = {};
        for (const child of f.fields) {
          const v = read(
            child,
            obj[child.key] ?? initialRaw(child),
            path ? `${path}.${child.key}` : child.key,
          );
          if (v !== undefined) out[child.key] = v;
        }
        return out;
      }
      default: {
        const text = typeof value === 'string' ? value.trim() : '';
        if (text === '') {
          if (f.required && f.kind !== 'string') errors[path || f.key] = 'Required';
          return f.kind === 'string' && f.required ? '' : undefined;
        }
        if (f.kind === 'string') return typeof value === 'string' ? value : '';
        if (f.kind === 'number' || f.kind === 'integer') {
          const n = Number(text);
          if (!Number.isFinite(n) || (f.kind === 'integer' && !Number.isInteger(n))) {
            errors[path || f.key] = f.kind === 'integer' ? 'Enter a whole number' : 'Enter a number';
            return undefined;
          }
          return n;
        }
        if (f.kind === 'enum') {
          const match = f.options.find((o) => String(o) === text);
          if (match === undefined) errors[path || f.key] = 'Pick one of the choices';
          return match;
        }
        try {
          return JSON.parse(text) as unknown;
        } catch {
          errors[path || f.key] = 'Not valid JSON';
          return undefined;
        }
      }
    }
  };
  const value = read(field, raw, field.kind === 'object' ? '' : field.key);
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value };
}

/**
 * The `response` of the function response that answers a question: an object reply as is, any
 * other value wrapped as `{ result }` (a function response carries an object).
 */
export function replyResponse(value: unknown): JsonObject {
  return isSchema(value) ? (value as JsonObject) : { result: value };
}
