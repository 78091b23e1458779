import type { Plugin } from '@adk/core';
import type { TextRedactor } from './redaction.js';
import type { InMemorySpanStore } from './span-store.js';

/** The attributes ADK puts the model's request and raw response in (JSON strings). */
export const LLM_REQUEST_ATTRIBUTE = 'gcp.vertex.agent.llm_request';
export const LLM_RESPONSE_ATTRIBUTE = 'gcp.vertex.agent.llm_response';

/** Longest payload kept, in characters of JSON; longer ones are cut and marked. */
export const PAYLOAD_LIMIT = 64 * 1024;

function inlineSize(data: unknown): number | undefined {
  if (typeof data === 'string') return Math.floor((data.replace(/=+$/, '').length * 3) / 4);
  if (data instanceof Uint8Array) return data.byteLength;
  return undefined;
}

/** Deeper than this is taken for a cycle (model payloads are a few levels deep, JSON Schemas some more). */
const MAX_DEPTH = 1000;

/**
 * `value` with every `inlineData` object's bytes replaced by their size and bigints as strings,
 * copying only the objects on the way to a change (a plain walk: `JSON.stringify` with a replacer
 * function costs half as much again on a long conversation). Functions and symbols are dropped by
 * `JSON.stringify` itself.
 */
function withoutInlineBytes(value: unknown, depth: number, redact?: TextRedactor): unknown {
  if (typeof value === 'string') return redact ? redact(value) : value;
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  if (depth > MAX_DEPTH) throw new TypeError('the payload is cyclic or too deeply nested');
  // As JSON.stringify would: what toJSON gives stands for the object (Dates give strings).
  const toJson = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJson === 'function') return withoutInlineBytes(toJson.call(value), depth + 1, redact);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const stripped = withoutInlineBytes(item, depth + 1, redact);
      if (stripped !== item) {
        copy ??= value.slice();
        copy[i] = stripped;
      }
    }
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  let renamed = false;
  for (const [key, item] of Object.entries(value)) {
    let stripped: unknown;
    if (key === 'inlineData' && item && typeof item === 'object') {
      const size = inlineSize((item as { data?: unknown }).data);
      stripped =
        size === undefined
          ? withoutInlineBytes(item, depth + 1, redact)
          : { ...item, data: `<${size} bytes not recorded>` };
    } else stripped = withoutInlineBytes(item, depth + 1, redact);
    if (stripped !== item) {
      copy ??= { ...value };
      copy[key] = stripped;
    }
    if (redact && redact(key) !== key) renamed = true;
  }
  // A key that holds a secret (a model's arguments can be keyed by anything) is masked too.
  if (renamed && redact)
    return Object.fromEntries(Object.entries(copy ?? value).map(([k, v]) => [redact(k), v]));
  return copy ?? value;
}

/**
 * JSON of a model request or response for the trace: inline file bytes are replaced by their size
 * (they are the user's data and often megabytes), functions dropped, and the text cut at `limit`
 * characters with a marker saying how long it was. With `redact`, every string (and key) is masked
 * before it is serialized: a conversation's earlier turns repeat in each request, so a remembering
 * redactor sees each text once instead of scanning the whole history on every call.
 */
export function payloadJson(value: unknown, limit = PAYLOAD_LIMIT, redact?: TextRedactor): string {
  let text: string;
  try {
    text = JSON.stringify(withoutInlineBytes(value, 0, redact)) ?? 'null';
  } catch (error) {
    const message = `Not serializable: ${(error as Error).message}`;
    text = JSON.stringify({ unrecorded: redact ? redact(message) : message });
  }
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}…[truncated: ${text.length} characters in all]`;
}

function describeFailure(error: unknown): { code?: string; message: string } {
  const code = (error as { code?: unknown } | undefined)?.code;
  let message: string;
  try {
    message = error instanceof Error ? error.message : String(error);
  } catch {
    message = 'an error that cannot be shown as text';
  }
  return { ...(typeof code === 'string' ? { code } : {}), message };
}

/**
 * Records each model call's request (as sent, after every plugin and callback changed it) and raw
 * response (before any `afterModel` hook replaced it) on its `call_llm` span in the server's span
 * store, for the UI's Request/Response pane (a failed call: its request and the error). Registered first among the runner's plugins, so it
 * sees the model's own response; it never changes the run. Requests carry no credentials (those
 * live in the provider clients), and inline file bytes are left out. They are serialized when first
 * read, not during the run: the run treats requests and responses as immutable (it copies to change).
 */
export function modelPayloadPlugin(store: InMemorySpanStore): Plugin {
  return {
    name: 'adk-server-model-payloads',
    afterModel({ context, request, response }) {
      store.annotateLatestModelCall(context.session.id, {
        [LLM_REQUEST_ATTRIBUTE]: (redact) => payloadJson(request, PAYLOAD_LIMIT, redact),
        [LLM_RESPONSE_ATTRIBUTE]: (redact) => payloadJson(response, PAYLOAD_LIMIT, redact),
      });
    },
    // A failed call keeps its request too, and in place of a response what went wrong (the
    // provider's error response when it gave one).
    onModelError({ context, request, error }) {
      const response = (error as { response?: unknown } | undefined)?.response;
      store.annotateLatestModelCall(context.session.id, {
        [LLM_REQUEST_ATTRIBUTE]: (redact) => payloadJson(request, PAYLOAD_LIMIT, redact),
        [LLM_RESPONSE_ATTRIBUTE]: (redact) =>
          payloadJson(response ?? { error: describeFailure(error) }, PAYLOAD_LIMIT, redact),
      });
    },
  };
}
