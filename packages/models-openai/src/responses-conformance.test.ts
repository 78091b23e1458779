import {
  type ProviderHarness,
  type ProviderReply,
  providerConformance,
  type ReplayResponse,
  startReplayServer,
} from '@adk/core/testing';
import { describe, it } from 'vitest';
import { OpenAIResponses } from './index.js';

// Responses streams: `event:` and `data:` lines, no `[DONE]`.
const sse = (events: Record<string, unknown>[], end = true): ReplayResponse => ({
  headers: { 'content-type': 'text/event-stream' },
  chunks: events.map((e, i) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`),
  ...(end ? {} : { hang: true }),
});
const words = (text: string) => text.match(/\S+\s*/g) ?? [text];
const response = (status: string, output: unknown[], usage?: unknown) => ({
  id: 'resp_1',
  object: 'response',
  status,
  model: 'gpt-test',
  output,
  ...(usage ? { usage } : {}),
});

/** Responses API wire format for the provider conformance suite. */
function wire(reply: ProviderReply, stream: boolean): ReplayResponse {
  if (reply.kind === 'error')
    return {
      status: reply.status,
      body: JSON.stringify({ error: { message: reply.message, type: 'invalid_request_error', code: null } }),
    };
  const message = (text: string) => ({
    id: 'msg_1',
    type: 'message',
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [] }],
  });
  if (reply.kind === 'hang')
    return sse(
      [
        { type: 'response.created', response: response('in_progress', []) },
        { type: 'response.output_item.added', output_index: 0, item: { ...message(''), content: [] } },
        {
          type: 'response.output_text.delta',
          output_index: 0,
          item_id: 'msg_1',
          content_index: 0,
          delta: reply.text,
        },
      ],
      false,
    );
  if (reply.kind === 'functionCall') {
    const args = JSON.stringify(reply.args);
    const item = {
      id: 'fc_1',
      type: 'function_call',
      status: 'completed',
      call_id: 'call_abc',
      name: reply.name,
      arguments: args,
    };
    if (!stream) return { body: JSON.stringify(response('completed', [item])) };
    const half = Math.floor(args.length / 2);
    return sse([
      { type: 'response.created', response: response('in_progress', []) },
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: { ...item, status: 'in_progress', arguments: '' },
      },
      {
        type: 'response.function_call_arguments.delta',
        output_index: 0,
        item_id: 'fc_1',
        delta: args.slice(0, half),
      },
      {
        type: 'response.function_call_arguments.delta',
        output_index: 0,
        item_id: 'fc_1',
        delta: args.slice(half),
      },
      { type: 'response.function_call_arguments.done', output_index: 0, item_id: 'fc_1', arguments: args },
      { type: 'response.output_item.done', output_index: 0, item },
      { type: 'response.completed', response: response('completed', [item]) },
    ]);
  }
  const usage = {
    input_tokens: reply.inputTokens,
    output_tokens: reply.outputTokens,
    total_tokens: reply.inputTokens + reply.outputTokens,
  };
  if (!stream) return { body: JSON.stringify(response('completed', [message(reply.text)], usage)) };
  return sse([
    { type: 'response.created', response: response('in_progress', []) },
    {
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...message(''), status: 'in_progress', content: [] },
    },
    ...words(reply.text).map((delta) => ({
      type: 'response.output_text.delta',
      output_index: 0,
      item_id: 'msg_1',
      content_index: 0,
      delta,
    })),
    { type: 'response.output_item.done', output_index: 0, item: message(reply.text) },
    { type: 'response.completed', response: response('completed', [message(reply.text)], usage) },
  ]);
}

async function harness(): Promise<ProviderHarness> {
  const server = await startReplayServer();
  return {
    model: () => new OpenAIResponses('gpt-test', { baseURL: server.url, apiKey: 'test-key', retry: false }),
    reply: (reply, { stream }) => server.enqueue(wire(reply, stream)),
    lastRequestBody: () => server.requests.at(-1)?.body,
    close: () => server.close(),
  };
}

describe('provider conformance: OpenAIResponses', () => {
  for (const c of providerConformance(harness)) it(c.name, c.run);
});
