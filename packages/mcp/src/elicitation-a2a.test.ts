// An MCP elicitation answered over A2A: an agent served with @adk/a2a calls a tool of the real
// `server-everything`, which asks for input; the A2A task becomes `input-required` carrying the
// confirmation call (with the question and its schema), and the official A2A SDK client, as the
// peer, answers with a function response; the call runs again with the answer and the task completes.

import { serveA2a } from '@adk/a2a';
import { LlmAgent, type LlmRequest, REQUEST_CONFIRMATION } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { ClientFactory } from 'a2a-sdk-v03/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingBin } from './__fixtures__/servers.js';
import { MCP_ELICITATION, McpToolset, type StoredElicitation } from './index.js';

type DataPart = { kind: 'data'; data: Record<string, unknown>; metadata?: Record<string, unknown> };
type AnyPart = {
  kind: string;
  text?: string;
  data?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
};

function toolResultOf(request: LlmRequest): string {
  for (let i = request.contents.length - 1; i >= 0; i--)
    for (const part of request.contents[i]?.parts ?? [])
      if (part.functionResponse) return JSON.stringify(part.functionResponse.response);
  return '';
}

const model = new ScriptedModel({
  script: Array.from({ length: 6 }, () => (request: LlmRequest) => {
    const last = request.contents.at(-1);
    if (last?.parts.some((p) => p.functionResponse))
      return {
        content: { role: 'model', parts: [{ text: `Tool said: ${toolResultOf(request)}` }] },
        finishReason: 'STOP',
      };
    return {
      content: {
        role: 'model',
        parts: [{ functionCall: { id: '', name: 'trigger-elicitation-request', args: {} } }],
      },
      finishReason: 'STOP',
    };
  }),
});

let toolset: McpToolset;
let served: Awaited<ReturnType<typeof serveA2a>>;

beforeAll(async () => {
  toolset = new McpToolset({
    name: 'everything',
    connection: { type: 'stdio', command: process.execPath, args: [everythingBin, 'stdio'] },
  });
  served = await serveA2a(new LlmAgent({ name: 'assistant', model, tools: [toolset] }));
}, 120_000);

afterAll(async () => {
  await served?.close();
  await toolset?.close();
});

describe('MCP elicitation over A2A (input-required)', () => {
  it('pauses the task as input-required with the question; a function response answers it', async () => {
    const client = await new ClientFactory().createFromUrl(served.url);
    const first = await client.sendMessage({
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        parts: [{ kind: 'text', text: 'ask me' }],
      },
    });
    if (first.kind !== 'task') throw new Error('expected a task');
    expect(first.status.state).toBe('input-required');
    const parts = (first.status.message?.parts ?? []) as AnyPart[];
    const ask = parts.find((p): p is DataPart => p.kind === 'data' && p.data?.name === REQUEST_CONFIRMATION);
    expect(ask).toBeDefined();
    const args = ask?.data.args as { toolConfirmation: { payload: Record<string, unknown> } };
    const stored = args.toolConfirmation.payload[MCP_ELICITATION] as StoredElicitation;
    expect(stored.question).toMatchObject({
      server: 'everything',
      tool: 'trigger-elicitation-request',
      mode: 'form',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });

    const second = await client.sendMessage({
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        taskId: first.id,
        contextId: first.contextId,
        parts: [
          {
            kind: 'data',
            data: {
              id: ask?.data.id as string,
              name: REQUEST_CONFIRMATION,
              response: {
                confirmed: true,
                payload: { action: 'accept', content: { name: 'Grace Hopper', check: true, integer: 3 } },
              },
            },
            metadata: { adk_type: 'function_response' },
          },
        ],
      },
    });
    if (second.kind !== 'task') throw new Error('expected a task');
    expect(second.status.state).toBe('completed');
    const text = (second.artifacts ?? [])
      .flatMap((a) => a.parts as AnyPart[])
      .map((p) => p.text ?? '')
      .join('');
    expect(text).toContain('Grace Hopper');
  }, 120_000);

  it('a malformed answer (no content) is asked again, and the task stays input-required', async () => {
    const client = await new ClientFactory().createFromUrl(served.url);
    const first = await client.sendMessage({
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        parts: [{ kind: 'text', text: 'ask me' }],
      },
    });
    if (first.kind !== 'task') throw new Error('expected a task');
    const ask = ((first.status.message?.parts ?? []) as AnyPart[]).find(
      (p): p is DataPart => p.kind === 'data' && p.data?.name === REQUEST_CONFIRMATION,
    );
    const second = await client.sendMessage({
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        taskId: first.id,
        contextId: first.contextId,
        parts: [
          {
            kind: 'data',
            data: { id: ask?.data.id as string, name: REQUEST_CONFIRMATION, response: { confirmed: true } },
            metadata: { adk_type: 'function_response' },
          },
        ],
      },
    });
    if (second.kind !== 'task') throw new Error('expected a task');
    expect(second.status.state).toBe('input-required');
    const again = ((second.status.message?.parts ?? []) as AnyPart[]).find(
      (p): p is DataPart => p.kind === 'data' && p.data?.name === REQUEST_CONFIRMATION,
    );
    expect(again).toBeDefined();
    const hint = (again?.data.args as { toolConfirmation?: { hint?: string } } | undefined)?.toolConfirmation
      ?.hint;
    expect(hint).toMatch(/no content/);
  }, 120_000);
});
