// McpToolset against @modelcontextprotocol/server-everything over Streamable HTTP (one server
// process for the file; one test restarts it on the same port to expire the session).
import { LlmAgent } from '@adk/core';
import { functionCallsResponse, ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responsesOf, runnerFor, type StartedServer, startEverythingHttp } from './__fixtures__/servers.js';
import { type McpProgress, McpToolset } from './index.js';

let server: StartedServer;
let toolset: McpToolset;
const progress: McpProgress[] = [];

beforeAll(async () => {
  server = await startEverythingHttp('streamableHttp');
  toolset = new McpToolset({
    name: 'everything-http',
    connection: { type: 'http', url: server.url, headers: { 'x-test': 'adk' } },
    onProgress: (p) => progress.push(p),
    progressEvents: true,
  });
});

afterAll(async () => {
  await toolset?.close();
  await server?.stop();
});

function agentCalling(steps: Parameters<typeof functionCallsResponse>[0][]) {
  const model = new ScriptedModel({
    script: [...steps.map((calls) => functionCallsResponse(calls)), 'done'],
  });
  return { model, ...runnerFor(new LlmAgent({ name: 'assistant', model, tools: [toolset] })) };
}

describe('McpToolset over Streamable HTTP (server-everything)', () => {
  it('calls tools of every content type', async () => {
    const { run } = agentCalling([
      [
        { name: 'echo', args: { message: 'over http' } },
        { name: 'get-tiny-image', args: {} },
        { name: 'get-structured-content', args: { location: 'Chicago' } },
        { name: 'get-resource-reference', args: { resourceType: 'Blob', resourceId: 3 } },
        { name: 'get-resource-links', args: { count: 2 } },
      ],
    ]);
    const byName = Object.fromEntries(responsesOf(await run('go')).map((r) => [r.name, r.response]));
    expect(byName.echo).toEqual({ result: 'Echo: over http' });
    expect(byName['get-tiny-image']).toMatchObject({ content: [{ type: 'image', mimeType: 'image/png' }] });
    expect(byName['get-structured-content']).toMatchObject({
      structuredContent: { temperature: expect.any(Number) },
    });
    expect(byName['get-resource-reference']).toMatchObject({
      content: [{ type: 'resource', uri: 'demo://resource/dynamic/blob/3', blob: expect.any(String) }],
    });
    expect(byName['get-resource-links']).toMatchObject({
      content: [
        { type: 'resource_link', uri: expect.stringMatching(/^demo:\/\//) },
        { type: 'resource_link', uri: expect.stringMatching(/^demo:\/\//) },
      ],
    });
  });

  it('reports progress and cancels an in-flight call when the run is aborted', async () => {
    progress.length = 0;
    const quick = agentCalling([
      [{ name: 'trigger-long-running-operation', args: { duration: 0.2, steps: 2 } }],
    ]);
    const quickEvents = await quick.run('go');
    expect(progress[0]).toMatchObject({ server: 'everything-http', progress: 1, total: 2 });
    // The same notifications as partial events of the run (not stored in the session).
    const progressEvents = quickEvents.filter((e) => e.customMetadata?.mcpProgress);
    expect(progressEvents[0]).toMatchObject({
      partial: true,
      author: 'assistant',
      customMetadata: { mcpProgress: { tool: 'trigger-long-running-operation', progress: 1, total: 2 } },
    });
    const session = await quick.runner.sessionService.getSession({
      appName: 'mcp-test',
      userId: 'u',
      sessionId: 's',
    });
    expect(session?.events.some((e) => e.customMetadata?.mcpProgress)).toBe(false);

    progress.length = 0;
    const controller = new AbortController();
    const slow = agentCalling([
      [{ name: 'trigger-long-running-operation', args: { duration: 20, steps: 20 } }],
    ]);
    const started = Date.now();
    const pending = slow.run('go', { signal: controller.signal });
    while (progress.length === 0) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    const events = await pending;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(events.at(-1)?.errorCode).toBe('CANCELLED');
  });

  it('opens a new session when the server forgot the old one (server restarted)', async () => {
    const first = agentCalling([[{ name: 'echo', args: { message: 'before' } }]]);
    expect(responsesOf(await first.run('go'))[0]?.response).toEqual({ result: 'Echo: before' });
    await server.stop();
    server = await startEverythingHttp('streamableHttp', server.port);
    const second = agentCalling([[{ name: 'echo', args: { message: 'after' } }]]);
    expect(responsesOf(await second.run('go'))[0]?.response).toEqual({ result: 'Echo: after' });
  });
});
