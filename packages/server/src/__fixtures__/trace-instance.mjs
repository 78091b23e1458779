// A second server instance in its own process, for the trace tests: serves the app `assistant`
// (an echoing scripted model) on the database given as argv[2], and prints its URL.
import { LlmAgent } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { createAdkServer, listenAdkServer } from '../../dist/index.js';

const agent = new LlmAgent({
  name: 'assistant',
  model: new ScriptedModel({ model: 'gemini-2.5-flash', respond: () => 'from the other instance' }),
});
const server = await createAdkServer({
  apps: { assistant: agent },
  databaseUrl: process.argv[2],
  a2a: false,
  frontends: false,
  shutdownGraceMs: 1000,
});
const listener = await listenAdkServer(server, { port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ url: listener.url })}\n`);
process.stdin.on('end', async () => {
  await listener.close();
  process.exit(0);
});
process.stdin.resume();
