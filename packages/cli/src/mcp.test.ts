import { join } from 'node:path';
import { LlmAgent, runAgent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { McpToolset } from '@adk/mcp';
import { describe, expect, it } from 'vitest';
import { BIN, EXAMPLES, offlineEnv, runCli } from './__fixtures__/cli.js';

describe('adk mcp', () => {
  it('serves an agent over stdio to an MCP client', async () => {
    const env = offlineEnv() as Record<string, string>;
    const served = new McpToolset({
      name: 'adk-mcp',
      connection: {
        type: 'stdio',
        command: process.execPath,
        args: [BIN, 'mcp', join(EXAMPLES, 'assistant')],
        env,
      },
      connectTimeoutMs: 20_000,
    });
    try {
      const tools = await served.listTools();
      expect(tools.map((t) => t.name)).toEqual(['assistant']);
      const caller = new LlmAgent({
        name: 'caller',
        model: new ScriptedModel({ script: [functionCallResponse('assistant', { message: 'hello' }), 'ok'] }),
        tools: [served],
      });
      const result = await runAgent(caller, 'ask');
      const response = result.events.flatMap((e) => e.content?.parts ?? []).find((p) => p.functionResponse);
      // The offline demo model answers (no provider key in the environment).
      expect(response?.functionResponse?.response.result).toMatch(/offline demo model/i);
    } finally {
      await served.close();
    }
  });

  it('has help', async () => {
    const result = await runCli(['mcp', '--help']);
    expect(result.code).toBe(0);
    for (const text of ['Usage: adk mcp', '<agent>', '--http', '--port <port>', '--expose-tools'])
      expect(result.stdout).toContain(text);
  });
});
