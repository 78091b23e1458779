// Sampling: a server asks our model. Off by default (server-everything then does not even offer
// its sampling tool); allowed per toolset with a policy.
import { InMemorySessionService, LlmAgent, type LlmRequest, Runner, userContent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { everythingBin, responsesOf } from './__fixtures__/servers.js';
import { McpToolset } from './index.js';

const connection = { type: 'stdio' as const, command: process.execPath, args: [everythingBin, 'stdio'] };

async function run(toolset: McpToolset, model: ScriptedModel) {
  const runner = new Runner({
    appName: 'sampling',
    agent: new LlmAgent({ name: 'assistant', model, tools: [toolset] }),
    sessionService: new InMemorySessionService(),
    autoCreateSession: true,
  });
  const events = [];
  for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('go') }))
    events.push(e);
  return events;
}

describe('MCP sampling', () => {
  it('is off by default: the capability is not declared', async () => {
    const toolset = new McpToolset({ name: 'everything', connection });
    try {
      expect((await toolset.listTools()).map((t) => t.name)).not.toContain('trigger-sampling-request');
    } finally {
      await toolset.close();
    }
  });

  it('answers with the policy’s model, its token cap, and refuses what the policy refuses', async () => {
    const asked: LlmRequest[] = [];
    const sampler = new ScriptedModel({
      respond: (request) => {
        asked.push(request);
        return 'A sampled answer.';
      },
    });
    let allow = true;
    const toolset = new McpToolset({
      name: 'everything',
      connection,
      sampling: { model: sampler, maxTokens: 50, allow: () => allow },
    });
    try {
      const model = new ScriptedModel({
        script: [
          functionCallResponse('trigger-sampling-request', { prompt: 'Say hi', maxTokens: 500 }, 'c1'),
          'done',
          functionCallResponse('trigger-sampling-request', { prompt: 'Again', maxTokens: 10 }, 'c2'),
          'refused',
        ],
      });
      const first = await run(toolset, model);
      const text = JSON.stringify(responsesOf(first)[0]?.response);
      expect(text).toContain('A sampled answer.');
      expect(asked[0]).toMatchObject({
        systemInstruction: 'You are a helpful test server.',
        config: { maxOutputTokens: 50 },
        contents: [{ role: 'user', parts: [{ text: expect.stringContaining('Say hi') }] }],
      });
      allow = false;
      const second = await run(toolset, model);
      expect(JSON.stringify(responsesOf(second)[0]?.response)).toMatch(/refused by the policy/);
      expect(asked).toHaveLength(1);
    } finally {
      await toolset.close();
    }
  });
});
