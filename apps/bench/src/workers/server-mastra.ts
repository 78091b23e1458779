// Child process: Mastra serving the benchmark agent through its AI SDK chat route: a Mastra `Agent`
// (the same scripted turn: user message → get_weather → tool → answer, its model answering at once)
// registered on a `Mastra` instance, and `handleChatStream` of `@mastra/ai-sdk` (what its
// `chatRoute` runs) in a Hono route, answered with the AI SDK's `createUIMessageStreamResponse`, as
// Mastra documents for serving a chat route from any framework. Served on the same path as ours
// (`POST /apps/bench/chat`) so the one load client drives both; the session-create call the client
// makes first is answered with an empty 200 (Mastra keeps no server session here: no memory, the
// request's messages are the conversation). Prints BENCH_READY with its URL.

import { mastraScriptedModel } from '../frameworks/mastra-model.js';
import {
  FINAL_TEXT,
  INSTRUCTION,
  TOOL_ARGS,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  TOOL_RESULT,
} from '../frameworks/types.js';
import { emitReady, emitSkip, reportCpuOnSignals } from './protocol.js';

async function main(): Promise<void> {
  let mastraCore: typeof import('@mastra/core/mastra');
  let mastraAgent: typeof import('@mastra/core/agent');
  let mastraTools: typeof import('@mastra/core/tools');
  let aiSdk: typeof import('@mastra/ai-sdk');
  try {
    mastraCore = await import('@mastra/core/mastra');
    mastraAgent = await import('@mastra/core/agent');
    mastraTools = await import('@mastra/core/tools');
    aiSdk = await import('@mastra/ai-sdk');
  } catch (error) {
    return emitSkip(`Mastra cannot be loaded: ${(error as Error).message.split('\n')[0]}`);
  }
  const { z } = await import('zod');
  const { createUIMessageStreamResponse } = await import('ai');
  const { Hono } = await import('hono');
  const { serve } = await import('@hono/node-server');

  const weather = mastraTools.createTool({
    id: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    inputSchema: z.object({ city: z.string() }),
    execute: async () => ({ ...TOOL_RESULT }),
  });
  const model = mastraScriptedModel((prompt) =>
    prompt.at(-1)?.role === 'tool'
      ? { text: FINAL_TEXT }
      : { toolCall: { name: TOOL_NAME, input: TOOL_ARGS } },
  );
  const assistant = new mastraAgent.Agent({
    id: 'bench',
    name: 'assistant',
    instructions: INSTRUCTION,
    model: model as never,
    tools: { [TOOL_NAME]: weather },
  });
  const mastra = new mastraCore.Mastra({ agents: { bench: assistant }, logger: false });

  const app = new Hono();
  app.post('/apps/bench/users/:user/sessions/:id', (c) => c.json({}));
  app.post('/apps/:agentId/chat', async (c) => {
    const params = await c.req.json();
    const stream = await aiSdk.handleChatStream({
      mastra,
      agentId: c.req.param('agentId'),
      params,
      version: 'v7',
    });
    return createUIMessageStreamResponse({ stream: stream as never });
  });
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  reportCpuOnSignals();
  emitReady({ url: `http://127.0.0.1:${address.port}` });
}

await main();
