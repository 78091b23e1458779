// A provider written the way a third party would (only the public `@adk/core` and `@adk/core/http`
// APIs), for an invented vendor, run through the same conformance suite as ours. It is also the
// worked example of docs/writing-a-provider.md.
import { describe, it } from 'vitest';
import { type HttpClientOptions, postJson, postJsonStreamBatches } from '../http/index.js';
import type { GenerateOptions, Llm, LlmRequest, LlmResponse, Part } from '../index.js';
import {
  type ProviderHarness,
  type ProviderReply,
  providerConformance,
  type ReplayResponse,
  startReplayServer,
} from './index.js';

/** The invented vendor's reply: text or one tool call, and token counts. */
interface AcmeReply {
  text?: string;
  call?: { id: string; tool: string; input: Record<string, unknown> };
  usage?: { in: number; out: number };
}
/** Its stream: text deltas, then one `done` event with the whole reply. */
type AcmeEvent = { delta: string } | { done: AcmeReply };

class AcmeModel implements Llm {
  constructor(
    readonly model: string,
    private readonly options: HttpClientOptions & { baseURL: string; apiKey: string },
  ) {}

  async *generate(request: LlmRequest, options: GenerateOptions = {}): AsyncGenerator<LlmResponse> {
    const { baseURL, apiKey, ...client } = this.options;
    const http = {
      ...client,
      url: `${baseURL}/generate`,
      requestHeaders: { authorization: `Bearer ${apiKey}` },
      apiName: 'Acme API',
      body: {
        model: this.model,
        system: request.systemInstruction,
        messages: request.contents,
        tools: request.tools,
        stream: options.stream === true,
      },
      ...(options.signal ? { signal: options.signal } : {}),
    };
    if (!options.stream) {
      yield toResponse((await postJson<AcmeReply>(http)).value);
      return;
    }
    const { events } = await postJsonStreamBatches<AcmeEvent>(http);
    for await (const batch of events) {
      for (const { value } of batch) {
        if ('delta' in value)
          yield { content: { role: 'model', parts: [{ text: value.delta }] }, partial: true };
        else yield toResponse(value.done);
      }
    }
  }
}

function toResponse(reply: AcmeReply): LlmResponse {
  const parts: Part[] = [];
  if (reply.text) parts.push({ text: reply.text });
  if (reply.call)
    parts.push({ functionCall: { id: reply.call.id, name: reply.call.tool, args: reply.call.input } });
  return {
    content: { role: 'model', parts },
    finishReason: 'STOP',
    turnComplete: true,
    ...(reply.usage
      ? { usageMetadata: { promptTokenCount: reply.usage.in, candidatesTokenCount: reply.usage.out } }
      : {}),
  };
}

function wire(reply: ProviderReply, stream: boolean): ReplayResponse {
  if (reply.kind === 'error')
    return { status: reply.status, body: JSON.stringify({ error: { message: reply.message } }) };
  const sse = (events: AcmeEvent[], end = true): ReplayResponse => ({
    headers: { 'content-type': 'text/event-stream' },
    chunks: events.map((e) => `data: ${JSON.stringify(e)}\n\n`),
    ...(end ? {} : { hang: true }),
  });
  if (reply.kind === 'hang') return sse([{ delta: reply.text }], false);
  const done: AcmeReply =
    reply.kind === 'text'
      ? { text: reply.text, usage: { in: reply.inputTokens, out: reply.outputTokens } }
      : { call: { id: 'acme-1', tool: reply.name, input: reply.args } };
  if (!stream) return { body: JSON.stringify(done) };
  const deltas = reply.kind === 'text' ? (reply.text.match(/\S+\s*/g) ?? []) : [];
  return sse([...deltas.map((delta) => ({ delta })), { done }]);
}

async function harness(): Promise<ProviderHarness> {
  const server = await startReplayServer();
  return {
    model: () => new AcmeModel('acme-1', { baseURL: server.url, apiKey: 'k', retry: false }),
    reply: (reply, { stream }) => server.enqueue(wire(reply, stream)),
    lastRequestBody: () => server.requests.at(-1)?.body,
    close: () => server.close(),
  };
}

describe('provider conformance: a third-party provider on the public API', () => {
  for (const c of providerConformance(harness)) it(c.name, c.run);
});
