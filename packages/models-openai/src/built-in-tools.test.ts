import { isAdkError } from '@adk/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { caught, collect, type ReplayServer, startReplayServer } from './__fixtures__/replay-server.js';
import { OpenAIChat } from './index.js';

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

it('rejects vendor built-in tools (Chat Completions has none) before sending anything', async () => {
  const model = new OpenAIChat('gpt-4o-mini', { apiKey: 'sk-test', baseURL: `${server.url}/v1` });
  const error = await caught(
    collect(
      model.generate({
        model: 'gpt-4o-mini',
        contents: [{ role: 'user', parts: [{ text: 'Search the web' }] }],
        builtInTools: [{ type: 'webSearch' }],
        config: {},
      }),
    ),
  );
  expect(isAdkError(error, 'UNSUPPORTED_BUILT_IN_TOOL')).toBe(true);
  expect((error as Error).message).toBe(
    'OpenAI Chat Completions has no built-in tool "webSearch" (it has none)',
  );
  expect(server.requests).toHaveLength(0);
});
