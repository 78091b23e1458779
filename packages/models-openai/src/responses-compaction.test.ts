import { InMemorySessionService, LlmAgent, Runner, userContent } from '@adk/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, jsonFixture, type ReplayServer, startReplayServer } from './__fixtures__/replay-server.js';
import { OpenAIResponses, responsesCompaction } from './index.js';

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

describe('responsesCompaction', () => {
  it('compacts a long history through /responses/compact and sends the compaction item on', async () => {
    const model = new OpenAIResponses('gpt-5-mini', {
      apiKey: 'sk-test',
      baseURL: `${server.url}/v1`,
      retry: false,
    });
    const agent = new LlmAgent({
      name: 'support',
      model,
      contextCompression: [responsesCompaction({ model, thresholdTokens: 40 })],
    });
    const runner = new Runner({
      appName: 'app',
      agent,
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    server.enqueue(
      jsonFixture('responses-reasoning-step3.json'),
      jsonFixture('responses-compacted.json'),
      jsonFixture('responses-reasoning-step4.json'),
    );
    await collect(
      runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('Where is order A-17?') }),
    );
    await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('Which carrier?') }));
    expect(server.requests.map((r) => r.path)).toEqual([
      '/v1/responses',
      '/v1/responses/compact',
      '/v1/responses',
    ]);
    expect((server.requests[1]?.body as { model: string } | undefined)?.model).toBe('gpt-5-mini');
    expect((server.requests[2]?.body as { input: unknown } | undefined)?.input).toMatchInlineSnapshot(`
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
          "encrypted_content": "gAAAAABoCOMPACTED_HISTORY",
          "id": "cmp_001",
          "type": "compaction",
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
      ]
    `);
  });
});
