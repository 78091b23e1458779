import type { LlmRequest } from '@adk/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  collect,
  jsonFixture,
  type ReplayServer,
  sseFixture,
  startReplayServer,
} from './__fixtures__/replay-server.js';
import { Claude, type ClaudeOptions } from './index.js';

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

function claude(model: string, options: ClaudeOptions = {}): Claude {
  return new Claude(model, { apiKey: 'k', baseURL: `${server.url}/v1`, retry: false, ...options });
}

async function bodyFor(model: string, config: LlmRequest['config']): Promise<Record<string, unknown>> {
  server.enqueue(jsonFixture('text.json'));
  await collect(
    claude(model).generate({ model, contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], config }),
  );
  const body = server.requests.at(-1)?.body as Record<string, unknown>;
  const { messages: _m, model: _model, ...rest } = body;
  return rest;
}

describe('Claude per-model request table', () => {
  it('asks adaptive-only models to think adaptively with an effort level and drops sampling parameters', async () => {
    expect(
      await bodyFor('claude-opus-4-7', {
        temperature: 0.2,
        topP: 0.9,
        topK: 10,
        thinking: { budgetTokens: 4096, effort: 'high', includeThoughts: true },
      }),
    ).toMatchInlineSnapshot(`
      {
        "max_tokens": 8192,
        "output_config": {
          "effort": "high",
        },
        "thinking": {
          "type": "adaptive",
        },
      }
    `);
    // A zero budget on a model that refuses `disabled` leaves thinking off by sending nothing.
    expect(await bodyFor('claude-opus-4-7', { thinking: { budgetTokens: 0 } })).toMatchInlineSnapshot(`
      {
        "max_tokens": 8192,
      }
    `);
  });

  it('keeps budgets where the model takes them, and turns an effort level into one on budget-only models', async () => {
    expect(await bodyFor('claude-opus-4-6', { thinking: { budgetTokens: 4096 } })).toMatchInlineSnapshot(`
      {
        "max_tokens": 8192,
        "thinking": {
          "budget_tokens": 4096,
          "type": "enabled",
        },
      }
    `);
    expect(await bodyFor('claude-sonnet-4-6', { thinking: { effort: 'minimal' } })).toMatchInlineSnapshot(`
      {
        "max_tokens": 8192,
        "output_config": {
          "effort": "low",
        },
        "thinking": {
          "type": "adaptive",
        },
      }
    `);
    expect(await bodyFor('claude-opus-4-5', { thinking: { effort: 'medium' } })).toMatchInlineSnapshot(`
      {
        "max_tokens": 12288,
        "output_config": {
          "effort": "medium",
        },
        "thinking": {
          "budget_tokens": 8192,
          "type": "enabled",
        },
      }
    `);
    expect(
      await bodyFor('claude-3-7-sonnet-latest', { thinking: { effort: 'high' } }),
    ).toMatchInlineSnapshot(`
      {
        "max_tokens": 20480,
        "thinking": {
          "budget_tokens": 16384,
          "type": "enabled",
        },
      }
    `);
    expect(
      await bodyFor('claude-sonnet-4-5', { thinking: { budgetTokens: 0 }, temperature: 0.5, topP: 0.8 }),
    ).toMatchInlineSnapshot(`
        {
          "max_tokens": 8192,
          "temperature": 0.5,
          "thinking": {
            "type": "disabled",
          },
        }
      `);
    expect(
      await bodyFor('claude-3-5-haiku-latest', { thinking: { effort: 'high' }, temperature: 0.5 }),
    ).toMatchInlineSnapshot(`
        {
          "max_tokens": 8192,
          "temperature": 0.5,
        }
      `);
  });

  it('streams adaptive thinking and sends the signed thinking back on the next turn', async () => {
    const model = claude('claude-opus-4-7');
    server.enqueue(sseFixture('stream-adaptive-thinking.sse'), jsonFixture('text.json'));
    const first = await collect(
      model.generate(
        {
          model: 'claude-opus-4-7',
          contents: [{ role: 'user', parts: [{ text: 'What is 27 * 453?' }] }],
          config: { thinking: { effort: 'low' } },
        },
        { stream: true },
      ),
    );
    expect(first.filter((r) => r.partial).map((r) => r.content?.parts[0])).toEqual([
      { text: 'The user wants the product of 27 and 453. ', thought: true },
      { text: '27 * 453 = 12231.', thought: true },
      { text: '27 × 453 = 12,231.' },
    ]);
    const final = first.at(-1);
    expect(final?.content?.parts).toEqual([
      {
        text: 'The user wants the product of 27 and 453. 27 * 453 = 12231.',
        thought: true,
        thoughtSignature: 'EqQBCgIYAhIMadaptiveSig0001',
      },
      { text: '27 × 453 = 12,231.' },
    ]);
    await collect(
      model.generate({
        model: 'claude-opus-4-7',
        contents: [
          { role: 'user', parts: [{ text: 'What is 27 * 453?' }] },
          final?.content ?? { role: 'model', parts: [] },
          { role: 'user', parts: [{ text: 'And times 2?' }] },
        ],
        config: { thinking: { effort: 'low' } },
      }),
    );
    expect(server.requests.at(-1)?.body).toMatchInlineSnapshot(`
      {
        "max_tokens": 8192,
        "messages": [
          {
            "content": [
              {
                "text": "What is 27 * 453?",
                "type": "text",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "signature": "EqQBCgIYAhIMadaptiveSig0001",
                "thinking": "The user wants the product of 27 and 453. 27 * 453 = 12231.",
                "type": "thinking",
              },
              {
                "text": "27 × 453 = 12,231.",
                "type": "text",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "text": "And times 2?",
                "type": "text",
              },
            ],
            "role": "user",
          },
        ],
        "model": "claude-opus-4-7",
        "output_config": {
          "effort": "low",
        },
        "thinking": {
          "type": "adaptive",
        },
      }
    `);
  });
});

describe('Claude structured outputs (GA)', () => {
  it('sends output_config.format with tools on models that have it, and reads the JSON text', async () => {
    server.enqueue(jsonFixture('structured.json'));
    const model = claude('claude-sonnet-4-5');
    const [response] = await collect(
      model.generate({
        model: 'claude-sonnet-4-5',
        contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }],
        tools: [{ name: 'lookup', parameters: z.toJSONSchema(z.object({ city: z.string() })) }],
        config: {
          responseSchema: z.toJSONSchema(
            z.object({
              city: z.string(),
              temperatureC: z.number(),
              detail: z.object({ sky: z.string() }).optional(),
            }),
          ),
          thinking: { effort: 'high' },
        },
      }),
    );
    const body = server.requests.at(-1)?.body as Record<string, unknown>;
    expect({
      output_config: body.output_config,
      system: body.system,
      tools: body.tools,
    }).toMatchInlineSnapshot(`
      {
        "output_config": {
          "format": {
            "schema": {
              "additionalProperties": false,
              "properties": {
                "city": {
                  "type": "string",
                },
                "detail": {
                  "additionalProperties": false,
                  "properties": {
                    "sky": {
                      "type": "string",
                    },
                  },
                  "required": [
                    "sky",
                  ],
                  "type": "object",
                },
                "temperatureC": {
                  "type": "number",
                },
              },
              "required": [
                "city",
                "temperatureC",
              ],
              "type": "object",
            },
            "type": "json_schema",
          },
        },
        "system": undefined,
        "tools": [
          {
            "input_schema": {
              "additionalProperties": false,
              "properties": {
                "city": {
                  "type": "string",
                },
              },
              "required": [
                "city",
              ],
              "type": "object",
            },
            "name": "lookup",
          },
        ],
      }
    `);
    expect(response?.content?.parts).toEqual([{ text: '{"city":"Paris","temperatureC":21}' }]);
  });
});

describe('Claude citations', () => {
  it('sends documents with citations on and keeps streamed citations as citationMetadata', async () => {
    server.enqueue(sseFixture('stream-citations.sse'));
    const model = claude('claude-sonnet-4-5', { citations: true });
    const responses = await collect(
      model.generate(
        {
          model: 'claude-sonnet-4-5',
          contents: [
            {
              role: 'user',
              parts: [
                {
                  inlineData: {
                    mimeType: 'text/plain',
                    data: Buffer.from('The grass is green. The sky is blue.').toString('base64'),
                  },
                },
                { text: 'What color is the grass and sky?' },
              ],
            },
          ],
          config: {},
        },
        { stream: true },
      ),
    );
    const body = server.requests.at(-1)?.body as { messages: unknown[] };
    expect(body.messages).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "citations": {
                "enabled": true,
              },
              "source": {
                "data": "The grass is green. The sky is blue.",
                "media_type": "text/plain",
                "type": "text",
              },
              "type": "document",
            },
            {
              "text": "What color is the grass and sky?",
              "type": "text",
            },
          ],
          "role": "user",
        },
      ]
    `);
    const final = responses.at(-1);
    const text = final?.content?.parts.map((p) => p.text).join('');
    expect(text).toBe('According to the document, the grass is green and the sky is blue.');
    expect(final?.citationMetadata).toMatchInlineSnapshot(`
      {
        "citations": [
          {
            "citedText": "The grass is green.",
            "endIndex": 45,
            "source": {
              "cited_text": "The grass is green.",
              "document_index": 0,
              "document_title": "Example Document",
              "end_char_index": 20,
              "start_char_index": 0,
              "type": "char_location",
            },
            "startIndex": 27,
            "title": "Example Document",
          },
          {
            "citedText": "The sky is blue.",
            "endIndex": 65,
            "source": {
              "cited_text": "The sky is blue.",
              "document_index": 0,
              "document_title": "Example Document",
              "end_char_index": 36,
              "start_char_index": 20,
              "type": "char_location",
            },
            "startIndex": 50,
            "title": "Example Document",
          },
        ],
      }
    `);
    const citations = (
      final?.citationMetadata as { citations: { startIndex: number; endIndex: number }[] } | undefined
    )?.citations;
    expect(citations?.map((c) => text?.slice(c.startIndex, c.endIndex))).toEqual([
      'the grass is green',
      'the sky is blue',
    ]);
  });
});

describe('Claude context editing', () => {
  it('sends context_management behind its beta header and reports the edits Claude applied', async () => {
    server.enqueue(jsonFixture('context-editing.json'));
    const model = claude('claude-sonnet-4-5', {
      betas: ['extended-cache-ttl-2025-04-11'],
      contextEditing: {
        clearToolUses: { trigger: 30000, keep: 3, clearAtLeast: 5000, excludeTools: ['web_search'] },
        clearThinking: { keepTurns: 1 },
      },
    });
    const [response] = await collect(
      model.generate({
        model: 'claude-sonnet-4-5',
        contents: [{ role: 'user', parts: [{ text: 'Status?' }] }],
        config: {},
      }),
    );
    const request = server.requests.at(-1);
    expect(request?.headers['anthropic-beta']).toBe(
      'extended-cache-ttl-2025-04-11,context-management-2025-06-27',
    );
    expect((request?.body as Record<string, unknown> | undefined)?.context_management).toMatchInlineSnapshot(`
      {
        "edits": [
          {
            "keep": {
              "type": "thinking_turns",
              "value": 1,
            },
            "type": "clear_thinking_20251015",
          },
          {
            "clear_at_least": {
              "type": "input_tokens",
              "value": 5000,
            },
            "exclude_tools": [
              "web_search",
            ],
            "keep": {
              "type": "tool_uses",
              "value": 3,
            },
            "trigger": {
              "type": "input_tokens",
              "value": 30000,
            },
            "type": "clear_tool_uses_20250919",
          },
        ],
      }
    `);
    expect(response?.customMetadata?.contextManagement).toEqual({
      applied_edits: [
        { type: 'clear_thinking_20251015', cleared_thinking_turns: 2, cleared_input_tokens: 4000 },
        { type: 'clear_tool_uses_20250919', cleared_tool_uses: 8, cleared_input_tokens: 50000 },
      ],
    });
    // Claude's input_tokens leave out cache reads and writes; the prompt count adds them back.
    expect(response?.usageMetadata).toEqual({
      promptTokenCount: 31200,
      candidatesTokenCount: 14,
      totalTokenCount: 31214,
      cachedContentTokenCount: 9000,
    });
  });
});
