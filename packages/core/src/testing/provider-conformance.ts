import assert from 'node:assert/strict';
import { isAdkError } from '../errors/errors.js';
import { contentText } from '../events/content.js';
import { isApiCallError } from '../http/api-call-error.js';
import type { Llm, LlmRequest, LlmResponse } from '../models/llm.js';
import type { ConformanceSuite } from './conformance.js';

/**
 * A vendor's answer, in the framework's terms. The harness writes it in its vendor's wire format
 * (JSON for a plain call; server-sent events, split as the vendor streams, when `stream` is true).
 */
export type ProviderReply =
  | { kind: 'text'; text: string; inputTokens: number; outputTokens: number }
  | { kind: 'functionCall'; name: string; args: Record<string, unknown> }
  | { kind: 'error'; status: 400 | 429 | 500; message: string }
  /** A streamed answer that sends its first text chunk and then never ends. */
  | { kind: 'hang'; text: string };

/** What a provider package gives the suite: its model, and a way to script the vendor's side. */
export interface ProviderHarness {
  /** The provider's model, pointed at the harness's server, with retries turned off. */
  model(): Llm | Promise<Llm>;
  /** Queues the vendor's answer to the next request. */
  reply(reply: ProviderReply, options: { stream: boolean }): void;
  /** The body of the last request the vendor received, as sent (usually parsed JSON). */
  lastRequestBody(): unknown;
  close(): Promise<void>;
}

const baseRequest = (extra: Partial<LlmRequest> = {}): LlmRequest => ({
  model: '',
  contents: [{ role: 'user', parts: [{ text: 'What is the weather in Paris?' }] }],
  config: {},
  ...extra,
});

async function all(model: Llm, request: LlmRequest, stream: boolean, signal?: AbortSignal) {
  const out: LlmResponse[] = [];
  for await (const r of model.generate(request, { stream, ...(signal ? { signal } : {}) })) out.push(r);
  return out;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected the call to fail');
}

/**
 * The behaviour every model provider must have (the `Llm` contract, docs/architecture.md §3.5), run
 * through the provider's real wire code against a scripted vendor. Each case starts from a fresh
 * harness and closes it. See docs/writing-a-provider.md.
 */
export function providerConformance(
  harness: () => ProviderHarness | Promise<ProviderHarness>,
): ConformanceSuite {
  const withHarness = (run: (h: ProviderHarness, model: Llm) => Promise<void>) => async () => {
    const h = await harness();
    try {
      await run(h, await h.model());
    } finally {
      await h.close();
    }
  };
  const text = 'It is sunny in Paris, 21 degrees.';
  return [
    {
      name: 'a plain call yields exactly one complete response with the text, finish reason and usage',
      run: withHarness(async (h, model) => {
        h.reply({ kind: 'text', text, inputTokens: 11, outputTokens: 9 }, { stream: false });
        const responses = await all(model, baseRequest(), false);
        assert.equal(responses.length, 1);
        const [only] = responses as [LlmResponse];
        assert.notEqual(only.partial, true);
        assert.equal(only.content?.role, 'model');
        assert.equal(only.content ? contentText(only.content) : '', text);
        assert.equal(only.finishReason, 'STOP');
        assert.equal(only.usageMetadata?.promptTokenCount, 11);
        assert.equal(only.usageMetadata?.candidatesTokenCount, 9);
      }),
    },
    {
      name: 'a streamed call yields partial text chunks, then one aggregated response with all the text',
      run: withHarness(async (h, model) => {
        h.reply({ kind: 'text', text, inputTokens: 11, outputTokens: 9 }, { stream: true });
        const responses = await all(model, baseRequest(), true);
        const partials = responses.filter((r) => r.partial);
        const finals = responses.filter((r) => !r.partial);
        assert.ok(partials.length >= 2, `expected several partial chunks, got ${partials.length}`);
        assert.equal(finals.length, 1, 'exactly one non-partial response');
        assert.equal(responses.at(-1), finals[0], 'the aggregated response comes last');
        const streamed = partials.map((r) => (r.content ? contentText(r.content) : '')).join('');
        assert.equal(streamed, text);
        assert.equal(finals[0]?.content ? contentText(finals[0].content) : '', text);
        assert.equal(finals[0]?.finishReason, 'STOP');
      }),
    },
    {
      name: 'a function call comes back with an id, its name and its arguments, streamed or not',
      run: withHarness(async (h, model) => {
        const args = { city: 'Paris', days: 2, units: { temperature: 'celsius' } };
        for (const stream of [false, true]) {
          h.reply({ kind: 'functionCall', name: 'get_weather', args }, { stream });
          const final = (await all(model, baseRequest(), stream)).filter((r) => !r.partial);
          assert.equal(final.length, 1);
          const calls =
            final[0]?.content?.parts.flatMap((p) => (p.functionCall ? [p.functionCall] : [])) ?? [];
          assert.equal(calls.length, 1, `stream: ${stream}`);
          assert.equal(calls[0]?.name, 'get_weather');
          assert.deepEqual(calls[0]?.args, args);
          assert.ok(typeof calls[0]?.id === 'string' && calls[0].id.length > 0, 'the call has an id');
        }
      }),
    },
    {
      name: 'the system instruction, the conversation, function responses and tool declarations reach the vendor',
      run: withHarness(async (h, model) => {
        h.reply({ kind: 'text', text: 'ok', inputTokens: 1, outputTokens: 1 }, { stream: false });
        await all(
          model,
          baseRequest({
            systemInstruction: 'You are a weather bot (marker-system).',
            contents: [
              { role: 'user', parts: [{ text: 'Weather please (marker-user).' }] },
              {
                role: 'model',
                parts: [{ functionCall: { id: 'call-1', name: 'get_weather', args: { city: 'Paris' } } }],
              },
              {
                role: 'user',
                parts: [
                  {
                    functionResponse: {
                      id: 'call-1',
                      name: 'get_weather',
                      response: { forecast: 'marker-response' },
                    },
                  },
                ],
              },
            ],
            tools: [
              {
                name: 'get_weather',
                description: 'Weather for a city (marker-tool)',
                parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
              },
            ],
          }),
          false,
        );
        const body = JSON.stringify(h.lastRequestBody());
        for (const marker of [
          'marker-system',
          'marker-user',
          'marker-response',
          'marker-tool',
          'get_weather',
        ])
          assert.ok(body.includes(marker), `the request body carries ${marker}`);
      }),
    },
    {
      name: 'vendor errors are typed: 429 a RateLimitError, 400 and 500 an ApiCallError, with the vendor message',
      run: withHarness(async (h, model) => {
        for (const status of [429, 400, 500] as const) {
          h.reply({ kind: 'error', status, message: `vendor says no (${status})` }, { stream: false });
          const error = await rejection(all(model, baseRequest(), false));
          assert.ok(isApiCallError(error), `status ${status}: an ApiCallError, got ${String(error)}`);
          assert.equal(error.status, status);
          assert.ok(error.message.includes(`vendor says no (${status})`), error.message);
          if (status === 429) assert.ok(isAdkError(error, 'RATE_LIMIT'), 'a 429 is a RateLimitError');
        }
      }),
    },
    {
      name: 'aborting the signal stops a stream that is still open with a cancellation',
      run: withHarness(async (h, model) => {
        h.reply({ kind: 'hang', text: 'It is' }, { stream: true });
        const controller = new AbortController();
        const started = Date.now();
        const error = await rejection(
          (async () => {
            for await (const r of model.generate(baseRequest(), { stream: true, signal: controller.signal }))
              if (r.partial) controller.abort();
          })(),
        );
        assert.ok(isAdkError(error, 'CANCELLED'), `a CancelledError, got ${String(error)}`);
        assert.ok(Date.now() - started < 5000, 'promptly');
      }),
    },
  ];
}
