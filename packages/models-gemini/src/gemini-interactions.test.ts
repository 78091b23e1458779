import {
  FunctionTool,
  googleSearch,
  InMemorySessionService,
  LlmAgent,
  ModelRegistry,
  Runner,
  userContent,
} from '@adk/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  collect,
  jsonFixture,
  type ReplayServer,
  sseFixture,
  startReplayServer,
} from './__fixtures__/replay-server.js';
import { GeminiInteractions, type GeminiInteractionsOptions, registerGemini } from './index.js';

let server: ReplayServer;
beforeEach(async () => {
  server = await startReplayServer();
});
afterEach(() => server.close());

function runnerFor(agent: LlmAgent, interactions: GeminiInteractionsOptions = {}): Runner {
  const models = registerGemini(new ModelRegistry(), {
    apiKey: 'test-key',
    baseURL: `${server.url}/v1beta`,
    retry: false,
    interactions,
  });
  return new Runner({
    appName: 'app',
    agent,
    sessionService: new InMemorySessionService(),
    autoCreateSession: true,
    models,
  });
}
const bodies = () => server.requests.map((r) => r.body as Record<string, unknown>);

describe('GeminiInteractions', () => {
  it('streams a basic exchange: thought summary, text, signature and usage', async () => {
    server.enqueue(sseFixture('interactions-stream-text.sse'));
    const model = new GeminiInteractions('gemini-3-flash-preview', {
      apiKey: 'test-key',
      baseURL: `${server.url}/v1beta`,
    });
    const out = await collect(
      model.generate(
        {
          model: 'gemini-3-flash-preview',
          systemInstruction: 'Be terse.',
          contents: [{ role: 'user', parts: [{ text: 'Count from 1 to 5.' }] }],
          config: { thinking: { effort: 'low', includeThoughts: true }, maxOutputTokens: 100 },
        },
        { stream: true },
      ),
    );
    expect(out.filter((r) => r.partial).map((r) => r.content?.parts[0])).toEqual([
      { text: 'Counting is easy.', thought: true },
      { text: '1, 2, 3' },
      { text: ', 4, 5.' },
    ]);
    expect(out.at(-1)).toMatchInlineSnapshot(`
      {
        "content": {
          "parts": [
            {
              "text": "Counting is easy.",
              "thought": true,
              "thoughtSignature": "CiQBsig-basic",
            },
            {
              "text": "1, 2, 3, 4, 5.",
            },
          ],
          "role": "model",
        },
        "customMetadata": {
          "interactionId": "v1_basic",
          "status": "completed",
        },
        "finishReason": "STOP",
        "modelVersion": "gemini-3-flash-preview",
        "turnComplete": true,
        "usageMetadata": {
          "cachedContentTokenCount": 0,
          "candidatesTokenCount": 9,
          "promptTokenCount": 12,
          "thoughtsTokenCount": 20,
          "totalTokenCount": 41,
        },
      }
    `);
    const request = server.requests[0];
    expect(request?.path).toBe('/v1beta/interactions');
    expect(request?.headers['api-revision']).toBe('2026-05-20');
    expect(request?.body).toMatchInlineSnapshot(`
      {
        "generation_config": {
          "max_output_tokens": 100,
          "thinking_level": "low",
          "thinking_summaries": "auto",
        },
        "input": [
          {
            "content": [
              {
                "text": "Count from 1 to 5.",
                "type": "text",
              },
            ],
            "type": "user_input",
          },
        ],
        "model": "gemini-3-flash-preview",
        "store": false,
        "stream": true,
        "system_instruction": "Be terse.",
      }
    `);
  });

  it('runs a tool call in two steps and sends call and result back as steps (stateless)', async () => {
    const schedule = new FunctionTool({
      name: 'schedule_meeting',
      description: 'Schedules a meeting.',
      parameters: z.object({
        attendees: z.array(z.string()),
        date: z.string(),
        time: z.string(),
        topic: z.string(),
      }),
      execute: async () => 'Meeting scheduled successfully.',
    });
    const agent = new LlmAgent({
      name: 'scheduler',
      model: 'interactions/gemini-3-flash-preview',
      tools: [schedule],
    });
    const runner = runnerFor(agent);
    server.enqueue(
      sseFixture('interactions-stream-function-call.sse'),
      sseFromInteraction('interactions-answer.json'),
      jsonFixture('interactions-second-turn.json'),
    );
    const events = await collect(
      runner.run({
        userId: 'u',
        sessionId: 's',
        newMessage: userContent(
          'Schedule a meeting for 2025-11-01 at 10 am with Peter and Amir about the Next Gen API.',
        ),
        runConfig: { streaming: true },
      }),
    );
    expect(events.filter((e) => !e.partial).at(-1)?.content?.parts[0]?.text).toBe(
      'Booked: Peter and Amir, Nov 1 at 10:00.',
    );
    await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('Where?') }));
    const [, second, third] = bodies();
    expect(second?.input).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "text": "Schedule a meeting for 2025-11-01 at 10 am with Peter and Amir about the Next Gen API.",
              "type": "text",
            },
          ],
          "type": "user_input",
        },
        {
          "signature": "CiQBsig-fc",
          "type": "thought",
        },
        {
          "arguments": {
            "attendees": [
              "Peter",
              "Amir",
            ],
            "date": "2025-11-01",
            "time": "10:00",
            "topic": "Next Gen API",
          },
          "id": "fc_8x2k",
          "name": "schedule_meeting",
          "type": "function_call",
        },
        {
          "call_id": "fc_8x2k",
          "name": "schedule_meeting",
          "result": {
            "result": "Meeting scheduled successfully.",
          },
          "type": "function_result",
        },
      ]
    `);
    expect(second?.store).toBe(false);
    expect((third?.input as unknown[] | undefined)?.length).toBe(6);
    expect(third).not.toHaveProperty('previous_interaction_id');
  });

  it('sends only the new steps with previous_interaction_id when server-side state is on', async () => {
    const agent = new LlmAgent({ name: 'assistant', model: 'interactions/gemini-3-flash-preview' });
    const runner = runnerFor(agent, { previousInteractionId: true });
    server.enqueue(jsonFixture('interactions-answer.json'), jsonFixture('interactions-second-turn.json'));
    await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('Book it.') }));
    await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('Where?') }));
    const [first, second] = bodies();
    expect(first).toMatchObject({ store: true });
    expect({
      previous: second?.previous_interaction_id,
      store: second?.store,
      input: second?.input,
    }).toMatchInlineSnapshot(`
      {
        "input": [
          {
            "content": [
              {
                "text": "Where?",
                "type": "text",
              },
            ],
            "type": "user_input",
          },
        ],
        "previous": "v1_fc2",
        "store": true,
      }
    `);
  });

  it('declares Google Search and keeps its steps as server tool parts, sent back unchanged', async () => {
    const agent = new LlmAgent({
      name: 'news',
      model: 'interactions/gemini-3-flash-preview',
      tools: [googleSearch()],
    });
    const runner = runnerFor(agent);
    server.enqueue(
      sseFixture('interactions-stream-google-search.sse'),
      jsonFixture('interactions-second-turn.json'),
    );
    const events = await collect(
      runner.run({
        userId: 'u',
        sessionId: 's',
        newMessage: userContent('Who won Euro 2024?'),
        runConfig: { streaming: true },
      }),
    );
    expect(events.filter((e) => !e.partial).at(-1)?.content?.parts).toMatchInlineSnapshot(`
      [
        {
          "serverToolUse": {
            "id": "gs_1",
            "input": {
              "queries": [
                "euro 2024 winner",
              ],
            },
            "name": "google_search",
          },
        },
        {
          "serverToolResult": {
            "content": {
              "arguments": {
                "queries": [
                  "euro 2024 winner",
                ],
              },
              "id": "gs_1",
              "signature": "CiQBsig-gs",
              "type": "google_search_call",
            },
            "toolUseId": "gs_1",
            "type": "google_search_call",
          },
        },
        {
          "serverToolResult": {
            "content": {
              "call_id": "gs_1",
              "result": [
                {
                  "title": "UEFA Euro 2024",
                  "url": "https://example.org/euro-2024",
                },
              ],
              "signature": "CiQBsig-gsr",
              "type": "google_search_result",
            },
            "toolUseId": "gs_1",
            "type": "google_search_result",
          },
        },
        {
          "text": "Spain won Euro 2024.",
        },
      ]
    `);
    await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('And 2020?') }));
    const [first, second] = bodies();
    expect(first?.tools).toEqual([{ type: 'google_search' }]);
    expect(second?.input).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "text": "Who won Euro 2024?",
              "type": "text",
            },
          ],
          "type": "user_input",
        },
        {
          "arguments": {
            "queries": [
              "euro 2024 winner",
            ],
          },
          "id": "gs_1",
          "signature": "CiQBsig-gs",
          "type": "google_search_call",
        },
        {
          "call_id": "gs_1",
          "result": [
            {
              "title": "UEFA Euro 2024",
              "url": "https://example.org/euro-2024",
            },
          ],
          "signature": "CiQBsig-gsr",
          "type": "google_search_result",
        },
        {
          "content": [
            {
              "text": "Spain won Euro 2024.",
              "type": "text",
            },
          ],
          "type": "model_output",
        },
        {
          "content": [
            {
              "text": "And 2020?",
              "type": "text",
            },
          ],
          "type": "user_input",
        },
      ]
    `);
  });

  it('turns an error event after HTTP 200 into an error response', async () => {
    server.enqueue(sseFixture('interactions-stream-error.sse'));
    const model = new GeminiInteractions('gemini-3-flash-preview', {
      apiKey: 'k',
      baseURL: `${server.url}/v1beta`,
    });
    const out = await collect(
      model.generate(
        { model: 'x', contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], config: {} },
        { stream: true },
      ),
    );
    expect(out.at(-1)).toMatchObject({
      errorCode: 'RESOURCE_EXHAUSTED',
      errorMessage: 'Gemini Interactions API: Quota exceeded for interactions.',
    });
  });

  it('rejects a malformed stream line with a typed error', async () => {
    server.enqueue({
      headers: { 'content-type': 'text/event-stream' },
      chunks: ['event: step.start\ndata: {"event_type":\n\n'],
    });
    const model = new GeminiInteractions('gemini-3-flash-preview', {
      apiKey: 'k',
      baseURL: `${server.url}/v1beta`,
      retry: false,
    });
    await expect(
      collect(
        model.generate(
          { model: 'x', contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], config: {} },
          { stream: true },
        ),
      ),
    ).rejects.toMatchObject({ code: 'API_CALL', failure: 'invalid-response' });
  });
});

/** A stored interaction replayed as a stream of steps. */
function sseFromInteraction(name: string) {
  const body = jsonFixture(name).body as string;
  const interaction = JSON.parse(body) as { steps: Record<string, unknown>[] };
  const events: Record<string, unknown>[] = [
    {
      event_type: 'interaction.created',
      interaction: { ...interaction, status: 'in_progress', steps: undefined },
    },
    ...interaction.steps.flatMap((step, index) => [
      { event_type: 'step.start', index, step },
      { event_type: 'step.stop', index },
    ]),
    { event_type: 'interaction.completed', interaction: { ...interaction, steps: undefined } },
  ];
  return {
    headers: { 'content-type': 'text/event-stream' },
    chunks: events.map((e) => `event: ${e.event_type}\ndata: ${JSON.stringify(e)}\n\n`),
  };
}
