// A long agent run exposed as an MCP task: the official SDK client makes a task-augmented
// `tools/call` to a served agent, gets the task at once, polls `tasks/get` while the run works,
// reads the answer with `tasks/result`, and `tasks/cancel` aborts a run in flight.
import { contentText, FunctionTool, LlmAgent, type LlmRequest } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type McpAgentServer, serveAgentAsMcp } from './index.js';

/** The slow tool waits until the test opens the gate, or until its run is aborted. */
let open: () => void = () => undefined;
let gate = new Promise<void>((resolve) => {
  open = resolve;
});
const aborted: string[] = [];
const slow = new FunctionTool({
  name: 'slow',
  description: 'Takes a while',
  parameters: z.object({ label: z.string() }),
  execute: async ({ label }, context) => {
    const signal = context.invocationContext.signal;
    await new Promise<void>((resolve) => {
      void gate.then(resolve);
      signal?.addEventListener('abort', () => {
        aborted.push(label);
        resolve();
      });
    });
    return { done: label };
  },
});

const model = new ScriptedModel({
  respond: (request: LlmRequest) => {
    const last = request.contents.at(-1);
    if (last?.parts[0]?.functionResponse) return 'finished the long job';
    return functionCallResponse('slow', { label: contentText(last) });
  },
});

let served: McpAgentServer;
let client: Client;

beforeAll(async () => {
  served = await serveAgentAsMcp(new LlmAgent({ name: 'worker', model, tools: [slow] }), {
    transport: { type: 'http', port: 0 },
    tasks: true,
  });
  client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url as string)));
});

afterAll(async () => {
  await client?.close();
  await served?.close();
});

async function startTask(message: string): Promise<string> {
  const created = await client.request(
    { method: 'tools/call', params: { name: 'worker', arguments: { message }, task: { ttl: 60_000 } } },
    CreateTaskResultSchema,
  );
  return created.task.taskId;
}

async function statusOf(taskId: string): Promise<string> {
  return (await client.experimental.tasks.getTask(taskId)).status;
}

describe('serveAgentAsMcp with tasks', () => {
  it('lists the agent tool as task-capable and the server declares tasks', async () => {
    expect(client.getServerCapabilities()?.tasks?.requests?.tools?.call).toBeDefined();
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'worker')?.execution).toEqual({ taskSupport: 'optional' });
  });

  it('creates a task, polls it while the run works, and delivers the answer as its result', async () => {
    const taskId = await startTask('job one');
    expect(await statusOf(taskId)).toBe('working');
    open();
    await expect.poll(() => statusOf(taskId), { timeout: 30_000 }).toBe('completed');
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.isError).not.toBe(true);
    expect(JSON.stringify(result.content)).toContain('finished the long job');
  });

  it('cancel reaches the run: the task is cancelled and the agent run aborted', async () => {
    gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const taskId = await startTask('job two');
    expect(await statusOf(taskId)).toBe('working');
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    expect(cancelled.status).toBe('cancelled');
    await expect.poll(() => aborted, { timeout: 30_000 }).toContain('job two');
    expect(await statusOf(taskId)).toBe('cancelled');
    open();
  });

  it('an unknown task id is a clear protocol error, not a crash', async () => {
    await expect(client.experimental.tasks.getTask('no-such-task')).rejects.toThrow(/not found|Task/i);
    // The server still answers.
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });
});
