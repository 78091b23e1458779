import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { AdkEvent, JsonObject } from '../api/types.js';
import { JsonView } from '../components/json-view.js';

const REQUEST_KEYS = ['gcp.vertex.agent.llm_request', 'gen_ai.request', 'llmRequest', 'llm_request'];
const RESPONSE_KEYS = ['gcp.vertex.agent.llm_response', 'gen_ai.response', 'llmResponse', 'llm_response'];

function pick(attrs: JsonObject, keys: string[]): unknown {
  for (const key of keys) {
    const v = attrs[key];
    if (v === undefined) continue;
    if (typeof v === 'string') {
      try {
        return JSON.parse(v);
      } catch {
        return v;
      }
    }
    return v;
  }
  return undefined;
}

/** The request the model received for the step that produced an event, and its raw response. */
export function ModelTab({ event }: { event?: AdkEvent }) {
  const [attrs, setAttrs] = useState<JsonObject | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    setAttrs(undefined);
    setError(undefined);
    if (!event || event.author === 'user') return;
    let live = true;
    api
      .eventTrace(event.id)
      .then((a) => live && setAttrs(a ?? {}))
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [event?.id]);
  if (!event)
    return <p class="muted pad">Select a model event to see the request and response of that step.</p>;
  if (event.author === 'user')
    return <p class="muted pad">This event is the user's message; no model step.</p>;
  const request = attrs && pick(attrs, REQUEST_KEYS);
  const response = attrs && pick(attrs, RESPONSE_KEYS);
  return (
    <div class="pad">
      <h3>Request to the model</h3>
      {request !== undefined ? (
        <JsonView value={request} label="Model request" />
      ) : (
        <p class="muted">
          {error
            ? `The server has no trace for this event (${error}).`
            : attrs
              ? 'The trace of this event does not record the model request.'
              : 'Loading…'}
        </p>
      )}
      <h3>Raw response</h3>
      {response !== undefined ? (
        <JsonView value={response} label="Model response" />
      ) : (
        <>
          <p class="muted">Not recorded by the server's trace; what the event holds:</p>
          <JsonView
            value={{
              content: event.content,
              usageMetadata: event.usageMetadata,
              finishReason: event.finishReason,
              errorCode: event.errorCode,
              errorMessage: event.errorMessage,
            }}
            label="Response as recorded in the event"
          />
        </>
      )}
      {attrs && Object.keys(attrs).length > 0 ? (
        <details>
          <summary>All trace attributes</summary>
          <JsonView value={attrs} label="Trace attributes" />
        </details>
      ) : null}
    </div>
  );
}
