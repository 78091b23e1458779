// MCP tasks against server-everything over Streamable HTTP (its task-only research tool): the call
// starts a task recorded in the log and pauses the invocation; our server restarts (new runner,
// toolset and MCP session; the MCP server keeps running); the result arrives as the call's
// function response. Cancel reaches the task.
import { type Event, InMemorySessionService, LlmAgent, Runner, userContent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responsesOf, type StartedServer, startEverythingHttp } from './__fixtures__/servers.js';
import { MCP_TASK_STATE_PREFIX, McpToolset } from './index.js';

let server: StartedServer;
beforeAll(async () => {
  server = await startEverythingHttp('streamableHttp');
});
afterAll(async () => {
  await server?.stop();
});

async function collect(events: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe('MCP tasks (server-everything)', () => {
  const sessionService = new InMemorySessionService();
  const makeRunner = (model: ScriptedModel, toolset: McpToolset) =>
    new Runner({
      appName: 'tasks',
      agent: new LlmAgent({ name: 'assistant', model, tools: [toolset] }),
      sessionService,
      autoCreateSession: true,
    });
  const toolsetFor = () =>
    new McpToolset({
      name: 'everything',
      connection: { type: 'http', url: server.url },
      tasks: { pollIntervalMs: 200 },
    });

  it('runs a task-only tool as a long-running call whose result arrives after our restart', async () => {
    const first = toolsetFor();
    const started = await collect(
      makeRunner(
        new ScriptedModel({
          script: [functionCallResponse('simulate-research-query', { topic: 'bubblewrap' }, 'c1')],
        }),
        first,
      ).run({ userId: 'u', sessionId: 's', newMessage: userContent('research bubblewrap') }),
    );
    // The call is long-running and the task id is in the log.
    expect(started.some((e) => e.longRunningToolIds?.includes('c1'))).toBe(true);
    const recorded = started.find((e) => e.actions.stateDelta[`${MCP_TASK_STATE_PREFIX}c1`] !== undefined);
    expect(recorded?.actions.stateDelta[`${MCP_TASK_STATE_PREFIX}c1`]).toMatchObject({
      server: 'everything',
      mcpTool: 'simulate-research-query',
      taskId: expect.any(String),
      functionCallId: 'c1',
    });
    expect(responsesOf(started)).toEqual([]);
    await first.close();

    // Restarted: everything new but the session store.
    const second = toolsetFor();
    try {
      const runner = makeRunner(new ScriptedModel({ script: ['Here is the research.'] }), second);
      expect(await second.pendingTasks({ runner, userId: 'u', sessionId: 's' })).toHaveLength(1);
      const delivered = await collect(second.resumeTasks({ runner, userId: 'u', sessionId: 's' }));
      const response = responsesOf(delivered).find((r) => r.name === 'simulate-research-query');
      expect(JSON.stringify(response?.response)).toMatch(/bubblewrap/);
      expect(delivered.at(-1)?.content?.parts[0]?.text).toBe('Here is the research.');
      expect(await second.pendingTasks({ runner, userId: 'u', sessionId: 's' })).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it('cancels a running task on the server, and the call is answered with the cancellation', async () => {
    const toolset = toolsetFor();
    try {
      const runner = makeRunner(
        new ScriptedModel({
          script: [
            functionCallResponse('simulate-research-query', { topic: 'sandboxes' }, 'c2'),
            'Cancelled it.',
          ],
        }),
        toolset,
      );
      await collect(
        runner.run({ userId: 'u', sessionId: 's2', newMessage: userContent('research sandboxes') }),
      );
      const cancelled = await toolset.cancelTasks({ runner, userId: 'u', sessionId: 's2' });
      expect(cancelled.map((t) => t.functionCallId)).toEqual(['c2']);
      const delivered = await collect(toolset.resumeTasks({ runner, userId: 'u', sessionId: 's2' }));
      expect(responsesOf(delivered)[0]?.response).toMatchObject({ taskStatus: 'cancelled' });
    } finally {
      await toolset.close();
    }
  });
});
