import {
  type ProviderHarness,
  type ProviderReply,
  providerConformance,
  type ReplayResponse,
  startReplayServer,
} from '@adk/core/testing';
import { describe, it } from 'vitest';
import { Claude } from './index.js';

const words = (text: string) => text.match(/\S+\s*/g) ?? [text];
const message = (usage: { input_tokens: number; output_tokens: number }) => ({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  content: [],
  model: 'claude-sonnet-4-5',
  stop_reason: null,
  stop_sequence: null,
  usage,
});
type WireEvent = { type: string; [key: string]: unknown };
const sse = (events: WireEvent[], end = true): ReplayResponse => ({
  headers: { 'content-type': 'text/event-stream' },
  chunks: events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`),
  ...(end ? {} : { hang: true }),
});

/** Anthropic Messages wire format for the provider conformance suite. */
function wire(reply: ProviderReply, stream: boolean): ReplayResponse {
  if (reply.kind === 'error') {
    const type = { 400: 'invalid_request_error', 429: 'rate_limit_error', 500: 'api_error' }[reply.status];
    return {
      status: reply.status,
      body: JSON.stringify({ type: 'error', error: { type, message: reply.message } }),
    };
  }
  if (reply.kind === 'hang') {
    return sse(
      [
        { type: 'message_start', message: message({ input_tokens: 1, output_tokens: 1 }) },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: reply.text } },
      ],
      false,
    );
  }
  const usage =
    reply.kind === 'text'
      ? { input_tokens: reply.inputTokens, output_tokens: reply.outputTokens }
      : { input_tokens: 1, output_tokens: 1 };
  const stop = reply.kind === 'functionCall' ? 'tool_use' : 'end_turn';
  if (!stream) {
    const content =
      reply.kind === 'functionCall'
        ? [{ type: 'tool_use', id: 'toolu_1', name: reply.name, input: reply.args }]
        : [{ type: 'text', text: reply.text }];
    return { body: JSON.stringify({ ...message(usage), content, stop_reason: stop }) };
  }
  const blocks: WireEvent[] =
    reply.kind === 'functionCall'
      ? (() => {
          const json = JSON.stringify(reply.args);
          const half = Math.floor(json.length / 2);
          return [
            {
              type: 'content_block_start',
              index: 0,
              content_block: { type: 'tool_use', id: 'toolu_1', name: reply.name, input: {} },
            },
            {
              type: 'content_block_delta',
              index: 0,
              delta: { type: 'input_json_delta', partial_json: json.slice(0, half) },
            },
            {
              type: 'content_block_delta',
              index: 0,
              delta: { type: 'input_json_delta', partial_json: json.slice(half) },
            },
          ];
        })()
      : [
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          ...words(reply.text).map((w) => ({
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'text_delta', text: w },
          })),
        ];
  return sse([
    { type: 'message_start', message: message({ input_tokens: usage.input_tokens, output_tokens: 1 }) },
    ...blocks,
    { type: 'content_block_stop', index: 0 },
    {
      type: 'message_delta',
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    },
    { type: 'message_stop' },
  ]);
}

async function harness(): Promise<ProviderHarness> {
  const server = await startReplayServer();
  return {
    model: () =>
      new Claude('claude-sonnet-4-5', { apiKey: 'test-key', baseURL: `${server.url}/v1`, retry: false }),
    reply: (reply, { stream }) => server.enqueue(wire(reply, stream)),
    lastRequestBody: () => server.requests.at(-1)?.body,
    close: () => server.close(),
  };
}

describe('provider conformance: @adk/models-claude', () => {
  for (const c of providerConformance(harness)) it(c.name, c.run);
});
