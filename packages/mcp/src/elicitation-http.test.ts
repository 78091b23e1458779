// An MCP elicitation answered over ADK's HTTP API: /run_sse pauses with the question, our server
// restarts (a new AdkServer, toolset and MCP server process; only the session store is kept, as a
// database would keep it), and a /run_sse message with the answer resumes the call.
import { InMemorySessionService, LlmAgent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { createAdkServer, listenAdkServer } from '@adk/server';
import { describe, expect, it } from 'vitest';
import { everythingBin } from './__fixtures__/servers.js';
import { MCP_ELICITATION, McpToolset, type StoredElicitation } from './index.js';

const sessionService = new InMemorySessionService();

type WireEvent = {
  content?: {
    parts?: {
      functionCall?: { id: string; name: string; args: Record<string, unknown> };
      functionResponse?: { name: string; response: unknown };
    }[];
  };
};

async function start(script: ConstructorParameters<typeof ScriptedModel>[0]) {
  const toolset = new McpToolset({
    name: 'everything',
    connection: { type: 'stdio', command: process.execPath, args: [everythingBin, 'stdio'] },
  });
  const agent = new LlmAgent({ name: 'assistant', model: new ScriptedModel(script), tools: [toolset] });
  const server = await createAdkServer({ apps: { elicit: agent }, sessionService });
  const listening = await listenAdkServer(server, { port: 0 });
  return {
    url: listening.url,
    close: async () => {
      await listening.close();
      await toolset.close();
    },
  };
}

async function runSse(url: string, newMessage: unknown): Promise<WireEvent[]> {
  const response = await fetch(`${url}/run_sse`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ appName: 'elicit', userId: 'u', sessionId: 's', newMessage }),
  });
  expect(response.status).toBe(200);
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => JSON.parse(frame.slice(6)) as WireEvent);
}

describe('MCP elicitation over /run_sse', () => {
  it('pauses with the question and continues after a restart when the answer arrives', async () => {
    const first = await start({ script: [functionCallResponse('trigger-elicitation-request', {}, 'c1')] });
    await fetch(`${first.url}/apps/elicit/users/u/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ sessionId: 's' }),
    });
    const paused = await runSse(first.url, { role: 'user', parts: [{ text: 'ask me' }] });
    const call = paused
      .flatMap((e) => e.content?.parts ?? [])
      .find((p) => p.functionCall?.name === 'adk_request_confirmation')?.functionCall;
    expect(call).toBeDefined();
    const payload =
      (call?.args.toolConfirmation as { payload: Record<string, unknown> } | undefined)?.payload ?? {};
    expect((payload[MCP_ELICITATION] as StoredElicitation).question.requestedSchema).toMatchObject({
      required: ['name'],
    });
    await first.close();

    const second = await start({ script: ['Thank you.'] });
    try {
      const resumed = await runSse(second.url, {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: call?.id,
              name: 'adk_request_confirmation',
              response: { confirmed: true, payload: { content: { name: 'Grace Hopper' } } },
            },
          },
        ],
      });
      const response = resumed
        .flatMap((e) => e.content?.parts ?? [])
        .find((p) => p.functionResponse?.name === 'trigger-elicitation-request')?.functionResponse;
      expect(JSON.stringify(response?.response)).toContain('Grace Hopper');
    } finally {
      await second.close();
    }
  }, 120_000);
});
