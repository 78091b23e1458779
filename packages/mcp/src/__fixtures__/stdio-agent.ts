// An agent served over stdio, spawned by serve-agent.test.ts (run with `node --import tsx`).
import { contentText, LlmAgent } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { serveAgentAsMcp } from '../index.js';

const agent = new LlmAgent({
  name: 'echoer',
  description: 'Repeats what it is told.',
  model: new ScriptedModel({ respond: (request) => `echo: ${contentText(request.contents.at(-1))}` }),
});
await serveAgentAsMcp(agent, { transport: 'stdio' });
