// A served agent that pauses for a tool confirmation asks the MCP client's user through
// elicitation, and goes on with the answer (the official SDK client as the peer).
import { contentText, FunctionTool, LlmAgent, type LlmRequest } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  type ElicitRequest,
  ElicitRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type McpAgentServer, serveAgentAsMcp } from './index.js';

const refunded: number[] = [];
const refund = new FunctionTool({
  name: 'refund',
  description: 'Refunds an order',
  parameters: z.object({ order: z.number() }),
  requireConfirmation: true,
  execute: ({ order }) => {
    refunded.push(order);
    return { refunded: order };
  },
});
const model = new ScriptedModel({
  respond: (request: LlmRequest) => {
    const last = request.contents.at(-1);
    const response = last?.parts.find((p) => p.functionResponse)?.functionResponse;
    if (response?.name === 'refund') return `result: ${JSON.stringify(response.response)}`;
    const order = Number(contentText(last).match(/\d+/)?.[0]);
    return functionCallResponse('refund', { order });
  },
});

let served: McpAgentServer;
let servedWithTasks: McpAgentServer;
beforeAll(async () => {
  served = await serveAgentAsMcp(new LlmAgent({ name: 'shop', model, tools: [refund] }), {
    transport: { type: 'http', port: 0 },
  });
  servedWithTasks = await serveAgentAsMcp(new LlmAgent({ name: 'shop', model, tools: [refund] }), {
    transport: { type: 'http', port: 0 },
    tasks: true,
  });
});
afterAll(async () => {
  await served?.close();
  await servedWithTasks?.close();
});

async function clientAnswering(
  answer: (request: ElicitRequest) => Record<string, unknown>,
  elicitation = true,
  url = served.url,
) {
  const client = new Client(
    { name: 'asker', version: '1.0.0' },
    { capabilities: elicitation ? { elicitation: {} } : {} },
  );
  const asked: ElicitRequest[] = [];
  if (elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request);
      return answer(request) as never;
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url as string)));
  return { client, asked };
}

describe('a served agent elicits the answers to its pauses', () => {
  it('asks the confirmation as a form and runs the tool when the user confirms', async () => {
    const { client, asked } = await clientAnswering(() => ({
      action: 'accept',
      content: { confirmed: true },
    }));
    try {
      const result = await client.callTool({ name: 'shop', arguments: { message: 'refund order 1001' } });
      expect(asked).toHaveLength(1);
      expect(asked[0]?.params).toMatchObject({
        requestedSchema: {
          type: 'object',
          properties: { confirmed: { type: 'boolean' } },
          required: ['confirmed'],
        },
      });
      expect(refunded).toEqual([1001]);
      expect(result.structuredContent).toMatchObject({ response: 'result: {"refunded":1001}' });
    } finally {
      await client.close();
    }
  });

  it('a declined elicitation rejects the call; a client without elicitation gets the paused run', async () => {
    const declining = await clientAnswering(() => ({ action: 'decline' }));
    try {
      const result = await declining.client.callTool({
        name: 'shop',
        arguments: { message: 'refund order 7' },
      });
      expect(refunded).not.toContain(7);
      expect(JSON.stringify(result.structuredContent)).toMatch(/reject|not confirmed|denied/i);
    } finally {
      await declining.client.close();
    }
    const plain = await clientAnswering(() => ({}), false);
    try {
      const result = await plain.client.callTool({ name: 'shop', arguments: { message: 'refund order 8' } });
      expect(refunded).not.toContain(8);
      expect(result.isError).toBeFalsy();
    } finally {
      await plain.client.close();
    }
  });

  it('in a task, the pause turns the task input_required and the question arrives through tasks/result', async () => {
    const { client, asked } = await clientAnswering(
      () => ({ action: 'accept', content: { confirmed: true } }),
      true,
      servedWithTasks.url,
    );
    try {
      const statuses: string[] = [];
      let result: CallToolResult | undefined;
      const stream = client.experimental.tasks.callToolStream(
        { name: 'shop', arguments: { message: 'refund order 4242' } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      );
      for await (const message of stream) {
        if (message.type === 'taskCreated' || message.type === 'taskStatus')
          statuses.push(message.task.status);
        else if (message.type === 'result') result = message.result as CallToolResult;
        else if (message.type === 'error') throw message.error;
      }
      expect(asked).toHaveLength(1);
      expect(asked[0]?.params).toMatchObject({
        requestedSchema: { properties: { confirmed: { type: 'boolean' } } },
      });
      expect(statuses).toContain('input_required');
      expect(refunded).toContain(4242);
      expect(result?.structuredContent).toMatchObject({ response: 'result: {"refunded":4242}' });
    } finally {
      await client.close();
    }
  });
});
