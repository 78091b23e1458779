import {
  type ProviderHarness,
  type ProviderReply,
  providerConformance,
  type ReplayResponse,
  startReplayServer,
} from '@adk/core/testing';
import { describe, it } from 'vitest';
import { Gemini } from './index.js';

const words = (text: string) => text.match(/\S+\s*/g) ?? [text];
const candidate = (parts: unknown[], finishReason?: string) => ({
  candidates: [{ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}), index: 0 }],
});

/** Gemini API wire format for the provider conformance suite. */
function wire(reply: ProviderReply, stream: boolean): ReplayResponse {
  if (reply.kind === 'error') {
    const status = { 400: 'INVALID_ARGUMENT', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL' }[reply.status];
    return {
      status: reply.status,
      body: JSON.stringify({ error: { code: reply.status, message: reply.message, status } }),
    };
  }
  const sse = (events: unknown[], end = true): ReplayResponse => ({
    headers: { 'content-type': 'text/event-stream' },
    chunks: events.map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`),
    ...(end ? {} : { hang: true }),
  });
  if (reply.kind === 'hang') return sse([candidate([{ text: reply.text }])], false);
  if (reply.kind === 'functionCall') {
    const event = candidate([{ functionCall: { name: reply.name, args: reply.args } }], 'STOP');
    return stream ? sse([event]) : { body: JSON.stringify(event) };
  }
  const usageMetadata = {
    promptTokenCount: reply.inputTokens,
    candidatesTokenCount: reply.outputTokens,
    totalTokenCount: reply.inputTokens + reply.outputTokens,
  };
  if (!stream)
    return { body: JSON.stringify({ ...candidate([{ text: reply.text }], 'STOP'), usageMetadata }) };
  const chunks = words(reply.text);
  return sse(
    chunks.map((w, i) => ({
      ...candidate([{ text: w }], i === chunks.length - 1 ? 'STOP' : undefined),
      ...(i === chunks.length - 1 ? { usageMetadata } : {}),
    })),
  );
}

async function harness(): Promise<ProviderHarness> {
  const server = await startReplayServer();
  return {
    model: () => new Gemini('gemini-2.5-flash', { apiKey: 'test-key', baseURL: server.url, retry: false }),
    reply: (reply, { stream }) => server.enqueue(wire(reply, stream)),
    lastRequestBody: () => server.requests.at(-1)?.body,
    close: () => server.close(),
  };
}

describe('provider conformance: @adk/models-gemini', () => {
  for (const c of providerConformance(harness)) it(c.name, c.run);
});
