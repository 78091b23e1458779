// Protocol negotiation: the toolset asks for the newest revision its SDK speaks and works with a
// server that answers an older one (2025-06-18) as with one that answers the newest; a revision
// the SDK does not know fails with a clear connection error.
import { fileURLToPath } from 'node:url';
import { LlmAgent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { responsesOf, runnerFor } from './__fixtures__/servers.js';
import { McpConnectionError, McpToolset } from './index.js';

const server = fileURLToPath(new URL('./__fixtures__/versioned-server.mjs', import.meta.url));

function toolsetFor(version: string) {
  return new McpToolset({
    name: `v${version}`,
    connection: {
      type: 'stdio',
      command: process.execPath,
      args: [server],
      env: { PROTOCOL_VERSION: version },
    },
  });
}

describe('MCP protocol revisions', () => {
  it.each([LATEST_PROTOCOL_VERSION, '2025-06-18'])('works with a server that answers %s', async (version) => {
    const toolset = toolsetFor(version);
    try {
      const model = new ScriptedModel({ script: [functionCallResponse('whoami', {}, 'c1'), 'ok'] });
      const { run } = runnerFor(new LlmAgent({ name: 'a', model, tools: [toolset] }));
      const [response] = responsesOf(await run('which revision?'));
      expect(response?.response).toMatchObject({
        structuredContent: { requested: LATEST_PROTOCOL_VERSION, answered: version },
      });
    } finally {
      await toolset.close();
    }
  });

  it('refuses a revision the SDK does not speak with a connection error', async () => {
    const toolset = toolsetFor('2099-01-01');
    try {
      await expect(toolset.listTools()).rejects.toBeInstanceOf(McpConnectionError);
      await expect(toolset.listTools()).rejects.toThrow(/2099-01-01/);
    } finally {
      await toolset.close();
    }
  });
});
