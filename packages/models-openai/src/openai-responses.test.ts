import {
  type Event,
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  ModelRegistry,
  REQUEST_CONFIRMATION,
  Runner,
  userContent,
  webSearch,
} from '@adk/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  collect,
  fixture,
  jsonFixture,
  type ReplayResponse,
  type ReplayServer,
  sseFixture,
  startReplayServer,
} from './__fixtures__/replay-server.js';
import {
  mcpApproval,
  mcpServer,
  OpenAIResponses,
  type OpenAIResponsesOptions,
  registerOpenAI,
} from './index.js';

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  // A fresh server per test: a failed test leaves no queued replies behind.
  await server.close();
  server = await startReplayServer();
});

function responses(model = 'gpt-5-mini', options: OpenAIResponsesOptions = {}): OpenAIResponses {
  return new OpenAIResponses(model, {
    apiKey: 'sk-test',
    baseURL: `${server.url}/v1`,
    retry: false,
    ...options,
  });
}

function runnerFor(agent: LlmAgent, options: OpenAIResponsesOptions = {}): Runner {
  const models = registerOpenAI(new ModelRegistry(), {
    apiKey: 'sk-test',
    baseURL: `${server.url}/v1`,
    retry: false,
    responses: options,
  });
  return new Runner({
    appName: 'app',
    agent,
    sessionService: new InMemorySessionService(),
    autoCreateSession: true,
    models,
  });
}

/** A stored response replayed as a stream: each output item added and done, then completed. */
function asStream(name: string): ReplayResponse {
  const response = JSON.parse(fixture(name)) as { output: Record<string, unknown>[] };
  const events: Record<string, unknown>[] = [
    { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } },
    ...response.output.flatMap((item, index) => [
      { type: 'response.output_item.added', output_index: index, item: { ...item, status: 'in_progress' } },
      { type: 'response.output_item.done', output_index: index, item },
    ]),
    { type: 'response.completed', response },
  ];
  return {
    headers: { 'content-type': 'text/event-stream' },
    chunks: events.map(
      (e, i) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`,
    ),
  };
}

const bodies = () => server.requests.map((r) => r.body as Record<string, unknown>);

describe('OpenAIResponses streaming', () => {
  it('streams text by output_index and maps usage with cached tokens', async () => {
    server.enqueue(sseFixture('responses-stream-text.sse'));
    const out = await collect(
      responses().generate(
        {
          model: 'gpt-5-mini',
          systemInstruction: 'Be brief.',
          contents: [{ role: 'user', parts: [{ text: 'Capital of France?' }] }],
          config: { thinking: { effort: 'low' }, maxOutputTokens: 200 },
        },
        { stream: true },
      ),
    );
    expect(out.filter((r) => r.partial).map((r) => r.content?.parts[0]?.text)).toEqual([
      'Paris',
      ' is the capital',
      ' of France.',
    ]);
    expect(out.at(-1)).toMatchInlineSnapshot(`
      {
        "content": {
          "parts": [
            {
              "text": "Paris is the capital of France.",
            },
          ],
          "role": "model",
        },
        "customMetadata": {
          "responseId": "resp_67ccd3a9da748190baa7f1570fe91ac604becb25c9c8e3f0",
          "status": "completed",
        },
        "finishReason": "STOP",
        "modelVersion": "gpt-5-mini-2025-08-07",
        "turnComplete": true,
        "usageMetadata": {
          "cachedContentTokenCount": 20,
          "candidatesTokenCount": 11,
          "promptTokenCount": 37,
          "thoughtsTokenCount": 0,
          "totalTokenCount": 48,
        },
      }
    `);
    expect(server.requests[0]?.path).toBe('/v1/responses');
    expect(bodies()[0]).toMatchInlineSnapshot(`
      {
        "include": [
          "reasoning.encrypted_content",
        ],
        "input": [
          {
            "content": [
              {
                "text": "Capital of France?",
                "type": "input_text",
              },
            ],
            "role": "user",
          },
        ],
        "instructions": "Be brief.",
        "max_output_tokens": 200,
        "model": "gpt-5-mini",
        "reasoning": {
          "effort": "low",
          "summary": "auto",
        },
        "store": false,
        "stream": true,
      }
    `);
  });

  it('assembles parallel function calls whose argument deltas interleave, with call_id from the items', async () => {
    server.enqueue(sseFixture('responses-stream-parallel-calls.sse'));
    const out = await collect(
      responses('gpt-4.1').generate(
        { model: 'gpt-4.1', contents: [{ role: 'user', parts: [{ text: 'Paris and Rome?' }] }], config: {} },
        { stream: true },
      ),
    );
    expect(out.at(-1)?.content?.parts).toEqual([
      { functionCall: { id: 'call_paris1', name: 'get_weather', args: { city: 'Paris' } } },
      { functionCall: { id: 'call_rome2', name: 'get_weather', args: { city: 'Rome' } } },
    ]);
  });

  it('turns an error after HTTP 200 into an error response, not a thrown error', async () => {
    server.enqueue(sseFixture('responses-stream-error.sse'), sseFixture('responses-stream-failed.sse'));
    const request = {
      model: 'gpt-5-mini',
      contents: [{ role: 'user' as const, parts: [{ text: 'Hi' }] }],
      config: {},
    };
    const errored = await collect(responses().generate(request, { stream: true }));
    expect(errored.at(-1)).toMatchObject({
      errorCode: 'server_error',
      errorMessage: expect.stringContaining('The server had an error'),
      content: { parts: [{ text: 'Partial' }] },
    });
    const failed = await collect(responses().generate(request, { stream: true }));
    expect(failed.at(-1)).toMatchObject({
      errorCode: 'rate_limit_exceeded',
      errorMessage: 'OpenAI Responses API: Rate limit reached for requests',
    });
  });

  it('reports a refusal as REFUSAL', async () => {
    server.enqueue(sseFixture('responses-stream-refusal.sse'));
    const out = await collect(
      responses('gpt-4o').generate(
        { model: 'gpt-4o', contents: [{ role: 'user', parts: [{ text: '…' }] }], config: {} },
        { stream: true },
      ),
    );
    expect(out.at(-1)).toMatchObject({
      finishReason: 'REFUSAL',
      errorCode: 'REFUSAL',
      errorMessage: "The model refused: I'm sorry, I can't help with that.",
    });
  });

  it('rejects a malformed stream line with a typed error', async () => {
    server.enqueue({
      headers: { 'content-type': 'text/event-stream' },
      chunks: ['event: response.created\ndata: {"type":"response.created",\n\n'],
    });
    await expect(
      collect(
        responses().generate(
          { model: 'gpt-5-mini', contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], config: {} },
          { stream: true },
        ),
      ),
    ).rejects.toMatchObject({ code: 'API_CALL', failure: 'invalid-response' });
  });
});

describe('OpenAIResponses multi-turn', () => {
  it('sends reasoning back with its encrypted content over four stateless steps, calls paired by call_id', async () => {
    const order = new FunctionTool({
      name: 'get_order',
      description: 'Order status',
      parameters: z.object({ order_id: z.string() }),
      execute: async ({ order_id }) => ({ order_id, status: 'shipped' }),
    });
    const shipment = new FunctionTool({
      name: 'get_shipment',
      description: 'Shipment of an order',
      parameters: z.object({ order_id: z.string() }),
      execute: async () => ({ carrier: 'DHL', eta: 'Friday' }),
    });
    const agent = new LlmAgent({
      name: 'support',
      model: 'openai/responses/gpt-5-mini',
      instruction: 'Help with orders.',
      tools: [order, shipment],
      generateConfig: { thinking: { effort: 'medium' } },
    });
    const runner = runnerFor(agent);
    server.enqueue(
      sseFixture('responses-reasoning-step1.sse'),
      asStream('responses-reasoning-step2.json'),
      asStream('responses-reasoning-step3.json'),
      jsonFixture('responses-reasoning-step4.json'),
    );
    const first = await collect(
      runner.run({
        userId: 'u',
        sessionId: 's',
        newMessage: userContent('Where is order A-17?'),
        runConfig: { streaming: true },
      }),
    );
    expect(
      first
        .filter((e) => !e.partial)
        .at(-1)
        ?.content?.parts.at(-1)?.text,
    ).toBe('Order A-17 shipped yesterday and arrives Friday.');
    await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('Which carrier?') }));
    expect(server.requests).toHaveLength(4);
    const [one, two, , four] = bodies();
    expect(one).toMatchObject({ store: false, include: ['reasoning.encrypted_content'], stream: true });
    expect(two?.input).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "text": "Where is order A-17?",
              "type": "input_text",
            },
          ],
          "role": "user",
        },
        {
          "encrypted_content": "gAAAAABoENCRYPTED_STEP_1",
          "id": "rs_step1",
          "summary": [
            {
              "text": "**Checking the order**

      I need the order status before answering.",
              "type": "summary_text",
            },
          ],
          "type": "reasoning",
        },
        {
          "arguments": "{"order_id":"A-17"}",
          "call_id": "call_order1",
          "name": "get_order",
          "type": "function_call",
        },
        {
          "call_id": "call_order1",
          "output": "{"order_id":"A-17","status":"shipped"}",
          "type": "function_call_output",
        },
      ]
    `);
    expect(four).toMatchInlineSnapshot(`
      {
        "include": [
          "reasoning.encrypted_content",
        ],
        "input": [
          {
            "content": [
              {
                "text": "Where is order A-17?",
                "type": "input_text",
              },
            ],
            "role": "user",
          },
          {
            "encrypted_content": "gAAAAABoENCRYPTED_STEP_1",
            "id": "rs_step1",
            "summary": [
              {
                "text": "**Checking the order**

      I need the order status before answering.",
                "type": "summary_text",
              },
            ],
            "type": "reasoning",
          },
          {
            "arguments": "{"order_id":"A-17"}",
            "call_id": "call_order1",
            "name": "get_order",
            "type": "function_call",
          },
          {
            "call_id": "call_order1",
            "output": "{"order_id":"A-17","status":"shipped"}",
            "type": "function_call_output",
          },
          {
            "encrypted_content": "gAAAAABoENCRYPTED_STEP_2",
            "id": "rs_step2",
            "summary": [],
            "type": "reasoning",
          },
          {
            "arguments": "{"order_id":"A-17"}",
            "call_id": "call_ship2",
            "name": "get_shipment",
            "type": "function_call",
          },
          {
            "call_id": "call_ship2",
            "output": "{"carrier":"DHL","eta":"Friday"}",
            "type": "function_call_output",
          },
          {
            "encrypted_content": "gAAAAABoENCRYPTED_STEP_3",
            "id": "rs_step3",
            "summary": [
              {
                "text": "Shipped yesterday; arriving Friday.",
                "type": "summary_text",
              },
            ],
            "type": "reasoning",
          },
          {
            "content": [
              {
                "text": "Order A-17 shipped yesterday and arrives Friday.",
                "type": "output_text",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "text": "Which carrier?",
                "type": "input_text",
              },
            ],
            "role": "user",
          },
        ],
        "instructions": "Help with orders.

      You are an agent. Your internal name is "support".",
        "model": "gpt-5-mini",
        "reasoning": {
          "effort": "medium",
          "summary": "auto",
        },
        "store": false,
        "tools": [
          {
            "description": "Order status",
            "name": "get_order",
            "parameters": {
              "properties": {
                "order_id": {
                  "type": "string",
                },
              },
              "required": [
                "order_id",
              ],
              "type": "object",
            },
            "strict": false,
            "type": "function",
          },
          {
            "description": "Shipment of an order",
            "name": "get_shipment",
            "parameters": {
              "properties": {
                "order_id": {
                  "type": "string",
                },
              },
              "required": [
                "order_id",
              ],
              "type": "object",
            },
            "strict": false,
            "type": "function",
          },
        ],
      }
    `);
  });

  it('sends only what follows the last response with previous_response_id when asked to', async () => {
    const agent = new LlmAgent({ name: 'assistant', model: 'openai/responses/gpt-5-mini' });
    const runner = runnerFor(agent, { previousResponseId: true });
    server.enqueue(
      jsonFixture('responses-reasoning-step3.json'),
      jsonFixture('responses-reasoning-step4.json'),
    );
    await collect(
      runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('Where is order A-17?') }),
    );
    await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('Which carrier?') }));
    const [first, second] = bodies();
    expect(first).toMatchObject({ store: true });
    expect(first).not.toHaveProperty('previous_response_id');
    expect({
      previous: second?.previous_response_id,
      store: second?.store,
      input: second?.input,
    }).toMatchInlineSnapshot(`
      {
        "input": [
          {
            "content": [
              {
                "text": "Which carrier?",
                "type": "input_text",
              },
            ],
            "role": "user",
          },
        ],
        "previous": "resp_step3",
        "store": true,
      }
    `);
  });

  it('never chains onto another session whose last answer is the same', async () => {
    const agent = new LlmAgent({ name: 'assistant', model: 'openai/responses/gpt-5-mini' });
    const runner = runnerFor(agent, { previousResponseId: true });
    // Another user's session gets the very same answer to another question, under another id.
    const same = jsonFixture('responses-reasoning-step3.json');
    const other = { ...same, body: String(same.body).replace('"resp_step3"', '"resp_other"') };
    server.enqueue(same, other, jsonFixture('responses-reasoning-step4.json'));
    await collect(
      runner.run({ userId: 'u', sessionId: 'a', newMessage: userContent('Where is order A-17?') }),
    );
    await collect(
      runner.run({ userId: 'v', sessionId: 'b', newMessage: userContent('Where is my parcel?') }),
    );
    await collect(runner.run({ userId: 'u', sessionId: 'a', newMessage: userContent('Which carrier?') }));
    // Session a continues from its own response, not from b's.
    expect(bodies()[2]?.previous_response_id).toBe('resp_step3');
  });
});

describe('OpenAIResponses hosted tools', () => {
  it('declares web search, keeps its call as server tool parts and sends the item back next turn', async () => {
    const agent = new LlmAgent({ name: 'news', model: 'openai/responses/gpt-4.1', tools: [webSearch()] });
    const runner = runnerFor(agent);
    server.enqueue(
      sseFixture('responses-stream-web-search.sse'),
      jsonFixture('responses-reasoning-step4.json'),
    );
    const events = await collect(
      runner.run({
        userId: 'u',
        sessionId: 's',
        newMessage: userContent('Good news today?'),
        runConfig: { streaming: true },
      }),
    );
    const final = events.filter((e) => !e.partial).at(-1);
    // url_citation annotations become citationMetadata, offsets into the response text.
    expect(final?.citationMetadata).toEqual({
      citations: [
        {
          startIndex: 15,
          endIndex: 49,
          uri: 'https://example.org/lyon-garden',
          title: 'Lyon garden reopens',
          source: {
            type: 'url_citation',
            start_index: 15,
            end_index: 49,
            url: 'https://example.org/lyon-garden',
            title: 'Lyon garden reopens',
          },
        },
      ],
    });
    expect(final?.content?.parts).toMatchInlineSnapshot(`
      [
        {
          "serverToolUse": {
            "id": "ws_67c9fa0502748190b7dd390736892e100be649c1a5ff9609",
            "input": {
              "query": "positive news story today",
              "type": "search",
            },
            "name": "web_search",
          },
        },
        {
          "serverToolResult": {
            "content": {
              "action": {
                "query": "positive news story today",
                "type": "search",
              },
              "id": "ws_67c9fa0502748190b7dd390736892e100be649c1a5ff9609",
              "status": "completed",
              "type": "web_search_call",
            },
            "toolUseId": "ws_67c9fa0502748190b7dd390736892e100be649c1a5ff9609",
            "type": "web_search_call",
          },
        },
        {
          "text": "As of today, a community garden in Lyon reopened.",
        },
      ]
    `);
    await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('More?') }));
    const [first, second] = bodies();
    expect(first?.tools).toEqual([{ type: 'web_search' }]);
    expect(second?.input).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "text": "Good news today?",
              "type": "input_text",
            },
          ],
          "role": "user",
        },
        {
          "action": {
            "query": "positive news story today",
            "type": "search",
          },
          "id": "ws_67c9fa0502748190b7dd390736892e100be649c1a5ff9609",
          "status": "completed",
          "type": "web_search_call",
        },
        {
          "content": [
            {
              "text": "As of today, a community garden in Lyon reopened.",
              "type": "output_text",
            },
          ],
          "role": "assistant",
        },
        {
          "content": [
            {
              "text": "More?",
              "type": "input_text",
            },
          ],
          "role": "user",
        },
      ]
    `);
  });

  it('maps an MCP approval request to a tool confirmation and sends the approval back', async () => {
    const agent = new LlmAgent({
      name: 'docs',
      model: 'openai/responses/gpt-4.1',
      tools: [
        mcpServer({
          server_label: 'deepwiki',
          server_url: 'https://mcp.deepwiki.com/mcp',
          require_approval: 'always',
        }),
        mcpApproval(),
      ],
    });
    const runner = runnerFor(agent);
    server.enqueue(jsonFixture('responses-mcp-approval.json'), jsonFixture('responses-mcp-call.json'));
    const first: Event[] = await collect(
      runner.run({
        userId: 'u',
        sessionId: 's',
        newMessage: userContent('Which transports does MCP support?'),
      }),
    );
    const ask = first
      .flatMap((e) => e.content?.parts ?? [])
      .find((p) => p.functionCall?.name === REQUEST_CONFIRMATION)?.functionCall;
    expect(ask?.args).toMatchObject({
      originalFunctionCall: {
        name: 'openai_mcp_approval',
        args: { server_label: 'deepwiki', name: 'ask_question' },
      },
    });
    const second = await collect(
      runner.run({
        userId: 'u',
        sessionId: 's',
        newMessage: {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: ask?.id ?? '',
                name: REQUEST_CONFIRMATION,
                response: { confirmed: true },
              },
            },
          ],
        },
      }),
    );
    expect(second.at(-1)?.content?.parts.at(-1)?.text).toBe('It supports stdio and Streamable HTTP.');
    const [declared, answered] = bodies();
    expect(declared?.tools).toEqual([
      {
        type: 'mcp',
        server_label: 'deepwiki',
        server_url: 'https://mcp.deepwiki.com/mcp',
        require_approval: 'always',
      },
    ]);
    expect(answered?.input).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "text": "Which transports does MCP support?",
              "type": "input_text",
            },
          ],
          "role": "user",
        },
        {
          "id": "mcpl_682d4379df088191886b70f4ec39f90403937d5f622d7a90",
          "server_label": "deepwiki",
          "tools": [
            {
              "input_schema": {
                "properties": {
                  "question": {
                    "type": "string",
                  },
                  "repoName": {
                    "type": "string",
                  },
                },
                "required": [
                  "repoName",
                  "question",
                ],
                "type": "object",
              },
              "name": "ask_question",
            },
          ],
          "type": "mcp_list_tools",
        },
        {
          "arguments": "{"repoName":"modelcontextprotocol/modelcontextprotocol","question":"What transport protocols are supported?"}",
          "id": "mcpr_682d498e3bd4819196a0ce1664f8e77b04ad1e533afccbfa",
          "name": "ask_question",
          "server_label": "deepwiki",
          "type": "mcp_approval_request",
        },
        {
          "approval_request_id": "mcpr_682d498e3bd4819196a0ce1664f8e77b04ad1e533afccbfa",
          "approve": true,
          "type": "mcp_approval_response",
        },
      ]
    `);
  });
});

describe('OpenAIResponses background mode', () => {
  it('polls a background response until it completes', async () => {
    server.enqueue(
      jsonFixture('responses-background-queued.json'),
      jsonFixture('responses-background-in-progress.json'),
      jsonFixture('responses-background-completed.json'),
    );
    const out = await collect(
      responses('gpt-5-mini', { background: { pollIntervalMs: 1 } }).generate(
        { model: 'gpt-5-mini', contents: [{ role: 'user', parts: [{ text: 'Long task' }] }], config: {} },
        { stream: true },
      ),
    );
    expect(out).toHaveLength(1);
    expect(out[0]?.content?.parts).toEqual([{ text: 'Done in the background.' }]);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1/responses',
      'GET /v1/responses/resp_bg',
      'GET /v1/responses/resp_bg',
    ]);
    expect(bodies()[0]).toMatchObject({ background: true, store: true });
  });

  it('cancels the background response when the signal aborts', async () => {
    server.enqueue(
      jsonFixture('responses-background-queued.json'),
      jsonFixture('responses-background-in-progress.json'),
      jsonFixture('responses-background-cancelled.json'),
    );
    const controller = new AbortController();
    const run = collect(
      responses('gpt-5-mini', { background: { pollIntervalMs: 50 } }).generate(
        { model: 'gpt-5-mini', contents: [{ role: 'user', parts: [{ text: 'Long task' }] }], config: {} },
        { signal: controller.signal },
      ),
    );
    await expect.poll(() => server.requests.length, { timeout: 10_000 }).toBe(2);
    controller.abort();
    await expect(run).rejects.toMatchObject({ code: 'CANCELLED' });
    await expect
      .poll(() => server.requests.at(-1)?.path, { timeout: 10_000 })
      .toBe('/v1/responses/resp_bg/cancel');
  });
});
