import type { Plugin } from '@adk/core';
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

/**
 * JSON of a model request or response for the trace: inline file bytes are replaced by their size
 * (they are the user's data and often megabytes), functions dropped, and the text cut at `limit`
 * characters with a marker saying how long it was.
 */
export function payloadJson(value: unknown, limit = PAYLOAD_LIMIT): string {
  let text: string;
  try {
    text =
      JSON.stringify(value, (key, v: unknown) => {
        if (typeof v === 'function' || typeof v === 'symbol') return undefined;
        if (typeof v === 'bigint') return v.toString();
        if (key === 'inlineData' && v && typeof v === 'object') {
          const size = inlineSize((v as { data?: unknown }).data);
          if (size !== undefined) return { ...v, data: `<${size} bytes not recorded>` };
        }
        return v;
      }) ?? 'null';
  } catch (error) {
    text = JSON.stringify({ unrecorded: `Not serializable: ${(error as Error).message}` });
  }
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}…[truncated: ${text.length} characters in all]`;
}

function describeFailure(error: unknown): { code?: string; message: string } {
  const code = (error as { code?: unknown } | undefined)?.code;
  return {
    ...(typeof code === 'string' ? { code } : {}),
    message: error instanceof Error ? error.message : String(error),
  };
}

/**
 * Records each model call's request (as sent, after every plugin and callback changed it) and raw
 * response (before any `afterModel` hook replaced it) on its `call_llm` span in the server's span
 * store, for the UI's Request/Response pane (a failed call: its request and the error). Registered first among the runner's plugins, so it
 * sees the model's own response; it never changes the run. Requests carry no credentials (those
 * live in the provider clients), and inline file bytes are left out.
 */
export function modelPayloadPlugin(store: InMemorySpanStore): Plugin {
  return {
    name: 'adk-server-model-payloads',
    afterModel({ context, request, response }) {
      store.annotateLatestModelCall(context.session.id, {
        [LLM_REQUEST_ATTRIBUTE]: payloadJson(request),
        [LLM_RESPONSE_ATTRIBUTE]: payloadJson(response),
      });
    },
    // A failed call keeps its request too, and in place of a response what went wrong (the
    // provider's error response when it gave one).
    onModelError({ context, request, error }) {
      const response = (error as { response?: unknown } | undefined)?.response;
      store.annotateLatestModelCall(context.session.id, {
        [LLM_REQUEST_ATTRIBUTE]: payloadJson(request),
        [LLM_RESPONSE_ATTRIBUTE]: payloadJson(response ?? { error: describeFailure(error) }),
      });
    },
  };
}
