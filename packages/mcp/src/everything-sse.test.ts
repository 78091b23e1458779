// McpToolset over the legacy HTTP+SSE transport, against server-everything started in `sse` mode
// (one server process for the file).
import { LlmAgent } from '@adk/core';
import { functionCallsResponse, ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responsesOf, runnerFor, type StartedServer, startEverythingHttp } from './__fixtures__/servers.js';
import { McpToolset } from './index.js';

let server: StartedServer;

beforeAll(async () => {
  server = await startEverythingHttp('sse');
});

afterAll(async () => {
  await server?.stop();
});

describe('McpToolset over legacy SSE (server-everything)', () => {
  it('lists and calls tools', async () => {
    const toolset = new McpToolset({
      name: 'everything-sse',
      connection: { type: 'sse', url: server.url, headers: { 'x-test': 'adk' }, token: () => 'secret' },
    });
    const model = new ScriptedModel({
      script: [
        functionCallsResponse([
          { name: 'get-sum', args: { a: 40, b: 2 } },
          { name: 'get-tiny-image', args: {} },
        ]),
        'done',
      ],
    });
    const { run, runner } = runnerFor(new LlmAgent({ name: 'a', model, tools: [toolset] }));
    const byName = Object.fromEntries(responsesOf(await run('go')).map((r) => [r.name, r.response]));
    expect(byName['get-sum']?.result).toMatch(/42/);
    expect(byName['get-tiny-image']).toMatchObject({ content: [{ type: 'image', mimeType: 'image/png' }] });
    await runner.close();
  });
});
