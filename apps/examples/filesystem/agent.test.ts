import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LlmAgent, runAgent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import type { McpToolset } from '@adk/mcp';
import { afterAll, expect, it } from 'vitest';
import { rootAgent } from './agent.js';

const toolset = rootAgent.tools[0] as McpToolset;

afterAll(() => toolset.close());

it('reads the sample notes through the MCP filesystem server', async () => {
  const notes = join(fileURLToPath(new URL('.', import.meta.url)), 'files', 'notes.md');
  // The example's own toolset, driven by a scripted model instead of the configured one.
  const agent = new LlmAgent({
    name: 'filesystem',
    model: new ScriptedModel({
      script: [functionCallResponse('read_text_file', { path: notes }), 'You need milk.'],
    }),
    tools: [toolset],
  });
  const result = await runAgent(agent, 'what is on my list?');
  const response = result.events.flatMap((e) => e.content?.parts ?? []).find((p) => p.functionResponse);
  expect(response?.functionResponse?.response.result).toContain('Buy milk');
  expect(result.text).toBe('You need milk.');
});
