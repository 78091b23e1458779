import {
  type ProviderHarness,
  type ProviderReply,
  providerConformance,
  type ReplayResponse,
  startReplayServer,
} from '@adk/core/testing';
import { describe, it } from 'vitest';
import { OpenAIChat } from './index.js';

const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-test' };
const sse = (events: unknown[], end = true): ReplayResponse => ({
  headers: { 'content-type': 'text/event-stream' },
  chunks: [...events.map((e) => `data: ${JSON.stringify(e)}\n\n`), ...(end ? ['data: [DONE]\n\n'] : [])],
  ...(end ? {} : { hang: true }),
});
const words = (text: string) => text.match(/\S+\s*/g) ?? [text];

/** Chat Completions wire format for the provider conformance suite. */
function wire(reply: ProviderReply, stream: boolean): ReplayResponse {
  if (reply.kind === 'error') {
    return {
      status: reply.status,
      body: JSON.stringify({ error: { message: reply.message, type: 'invalid_request_error' } }),
    };
  }
  if (reply.kind === 'hang')
    return sse([{ ...base, choices: [{ index: 0, delta: { content: reply.text } }] }], false);
  const call = reply.kind === 'functionCall';
  const toolCall = call
    ? {
        id: 'call_abc',
        type: 'function',
        function: { name: reply.name, arguments: JSON.stringify(reply.args) },
      }
    : undefined;
  const usage =
    reply.kind === 'text' ? { prompt_tokens: reply.inputTokens, completion_tokens: reply.outputTokens } : {};
  if (!stream) {
    return {
      body: JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        model: 'gpt-test',
        choices: [
          {
            index: 0,
            message: call
              ? { role: 'assistant', content: null, tool_calls: [toolCall] }
              : { role: 'assistant', content: reply.text },
            finish_reason: call ? 'tool_calls' : 'stop',
          },
        ],
        usage,
      }),
    };
  }
  if (call) {
    const args = JSON.stringify(reply.args);
    const half = Math.floor(args.length / 2);
    return sse([
      {
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              role: 'assistant',
              tool_calls: [
                {
                  index: 0,
                  id: 'call_abc',
                  type: 'function',
                  function: { name: reply.name, arguments: args.slice(0, half) },
                },
              ],
            },
          },
        ],
      },
      {
        ...base,
        choices: [
          { index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] } },
        ],
      },
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    ]);
  }
  return sse([
    ...words(reply.text).map((w) => ({ ...base, choices: [{ index: 0, delta: { content: w } }] })),
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    { ...base, choices: [], usage },
  ]);
}

async function harness(): Promise<ProviderHarness> {
  const server = await startReplayServer();
  return {
    model: () => new OpenAIChat('gpt-test', { baseURL: server.url, apiKey: 'test-key', retry: false }),
    reply: (reply, { stream }) => server.enqueue(wire(reply, stream)),
    lastRequestBody: () => server.requests.at(-1)?.body,
    close: () => server.close(),
  };
}

describe('provider conformance: @adk/models-openai', () => {
  for (const c of providerConformance(harness)) it(c.name, c.run);
});
