import {
  type ProviderHarness,
  type ProviderReply,
  providerConformance,
  type ReplayResponse,
  startReplayServer,
} from '@adk/core/testing';
import { describe, it } from 'vitest';
import { GeminiInteractions } from './index.js';

const words = (text: string) => text.match(/\S+\s*/g) ?? [text];
const sse = (events: Record<string, unknown>[], end = true): ReplayResponse => ({
  headers: { 'content-type': 'text/event-stream' },
  chunks: events.map((e) => `event: ${e.event_type}\ndata: ${JSON.stringify(e)}\n\n`),
  ...(end ? {} : { hang: true }),
});
const interaction = (status: string, steps?: unknown[], usage?: unknown) => ({
  id: 'v1_conf',
  object: 'interaction',
  status,
  model: 'gemini-test',
  ...(steps ? { steps } : {}),
  ...(usage ? { usage } : {}),
});

/** Interactions API wire format (steps) for the provider conformance suite. */
function wire(reply: ProviderReply, stream: boolean): ReplayResponse {
  if (reply.kind === 'error') {
    const status = { 400: 'INVALID_ARGUMENT', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL' }[reply.status];
    return {
      status: reply.status,
      body: JSON.stringify({ error: { code: reply.status, message: reply.message, status } }),
    };
  }
  if (reply.kind === 'hang')
    return sse(
      [
        { event_type: 'interaction.created', interaction: interaction('in_progress') },
        { event_type: 'step.start', index: 0, step: { type: 'model_output' } },
        { event_type: 'step.delta', index: 0, delta: { type: 'text', text: reply.text } },
      ],
      false,
    );
  if (reply.kind === 'functionCall') {
    const step = { type: 'function_call', id: 'fc_conf', name: reply.name, arguments: reply.args };
    if (!stream) return { body: JSON.stringify(interaction('requires_action', [step])) };
    const args = JSON.stringify(reply.args);
    const half = Math.floor(args.length / 2);
    return sse([
      { event_type: 'interaction.created', interaction: interaction('in_progress') },
      { event_type: 'step.start', index: 0, step: { ...step, arguments: {} } },
      {
        event_type: 'step.delta',
        index: 0,
        delta: { type: 'arguments_delta', arguments: args.slice(0, half) },
      },
      { event_type: 'step.delta', index: 0, delta: { type: 'arguments_delta', arguments: args.slice(half) } },
      { event_type: 'step.stop', index: 0 },
      { event_type: 'interaction.completed', interaction: interaction('requires_action') },
    ]);
  }
  const usage = {
    total_input_tokens: reply.inputTokens,
    total_output_tokens: reply.outputTokens,
    total_tokens: reply.inputTokens + reply.outputTokens,
  };
  if (!stream)
    return {
      body: JSON.stringify(
        interaction(
          'completed',
          [{ type: 'model_output', content: [{ type: 'text', text: reply.text }] }],
          usage,
        ),
      ),
    };
  return sse([
    { event_type: 'interaction.created', interaction: interaction('in_progress') },
    { event_type: 'step.start', index: 0, step: { type: 'model_output' } },
    ...words(reply.text).map((text) => ({
      event_type: 'step.delta',
      index: 0,
      delta: { type: 'text', text },
    })),
    { event_type: 'step.stop', index: 0 },
    { event_type: 'interaction.completed', interaction: interaction('completed', undefined, usage) },
  ]);
}

async function harness(): Promise<ProviderHarness> {
  const server = await startReplayServer();
  return {
    model: () =>
      new GeminiInteractions('gemini-test', {
        apiKey: 'test-key',
        baseURL: `${server.url}/v1beta`,
        retry: false,
      }),
    reply: (reply, { stream }) => server.enqueue(wire(reply, stream)),
    lastRequestBody: () => server.requests.at(-1)?.body,
    close: () => server.close(),
  };
}

describe('provider conformance: GeminiInteractions', () => {
  for (const c of providerConformance(harness)) it(c.name, c.run);
});
