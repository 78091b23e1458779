// Protocol behaviour the registry servers do not show on demand (paged tools/list, list_changed
// after a call, audio, request headers and bearer tokens, what the server sees on cancellation,
// per-call timeouts), against a server built with the official SDK's low-level Server over
// Streamable HTTP on 127.0.0.1 (one server for the file).
import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LlmAgent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responsesOf, runnerFor } from './__fixtures__/servers.js';
import { McpToolset } from './index.js';

const PAGE = 2;
const CHIRP = Buffer.from('RIFF....chirp').toString('base64');
const tools: Tool[] = ['alpha', 'beta', 'gamma', 'delta', 'unlock', 'slow', 'beep'].map((name) => ({
  name,
  description: `The ${name} tool`,
  inputSchema: { type: 'object', properties: { n: { type: 'number', minimum: 0 } } },
}));
const seen = { listCalls: 0, headers: [] as IncomingHttpHeaders[], cancelled: 0, slowStarted: () => {} };
let http: HttpServer;
let url: string;
let token = 'first-token';

function makeServer(): Server {
  const server = new Server(
    { name: 'edges', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true }, resources: {} } },
  );
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [{ uri: 'edges://chirp.wav', name: 'chirp', mimeType: 'audio/wav' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => ({
    contents: [{ uri: request.params.uri, mimeType: 'audio/wav', blob: CHIRP }],
  }));
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    seen.listCalls++;
    const start = Number(request.params?.cursor ?? 0);
    const next = start + PAGE;
    return { tools: tools.slice(start, next), ...(next < tools.length ? { nextCursor: String(next) } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    switch (request.params.name) {
      case 'unlock':
        if (!tools.some((t) => t.name === 'secret'))
          tools.push({ name: 'secret', description: 'Unlocked', inputSchema: { type: 'object' } });
        await server.sendToolListChanged();
        return { content: [{ type: 'text', text: 'unlocked' }] };
      case 'slow':
        seen.slowStarted();
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 5_000);
          extra.signal.addEventListener('abort', () => {
            seen.cancelled++;
            clearTimeout(timer);
            resolve();
          });
        });
        return { content: [{ type: 'text', text: 'slow done' }] };
      case 'beep':
        return {
          content: [
            { type: 'text', text: 'a beep' },
            { type: 'audio', mimeType: 'audio/wav', data: Buffer.from('RIFF....WAVE').toString('base64') },
          ],
        };
      default:
        return { content: [{ type: 'text', text: `${request.params.name} ran` }] };
    }
  });
  return server;
}

beforeAll(async () => {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  http = createServer(async (req, res) => {
    seen.headers.push(req.headers);
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          sessions.set(sid, created);
        },
      });
      await makeServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
});

describe('McpToolset protocol edges', () => {
  const toolset = () =>
    new McpToolset({
      name: 'edges',
      connection: { type: 'http', url, headers: { 'x-tenant': 'acme' }, token: () => token },
      timeoutMs: 300,
    });

  it('follows tools/list pages, and lists again after notifications/tools/list_changed', async () => {
    const set = toolset();
    const model = new ScriptedModel({
      script: [functionCallResponse('unlock'), 'unlocked', 'same', 'again'],
    });
    const { run } = runnerFor(new LlmAgent({ name: 'a', model, tools: [set] }));
    await run('unlock it');
    const before = model.requests[0]?.tools?.map((t) => t.name);
    expect(before).toEqual(['alpha', 'beta', 'gamma', 'delta', 'unlock', 'slow', 'beep']);
    expect(model.requests[0]?.tools?.[0]?.parameters).toEqual(tools[0]?.inputSchema);
    const lists = seen.listCalls;
    await run('nothing changed');
    expect(seen.listCalls).toBe(lists); // cached while nothing changes
    // The server announced the new tool (on its standalone stream, so maybe after the result).
    await expect.poll(async () => (await set.listTools()).map((t) => t.name)).toContain('secret');
    await run('and now');
    expect(model.requests[3]?.tools?.map((t) => t.name)).toContain('secret');
    await set.close();
  });

  it('sends the headers and a fresh bearer token from the provider with every request', async () => {
    const set = toolset();
    const { run } = runnerFor(
      new LlmAgent({
        name: 'a',
        model: new ScriptedModel({
          script: [functionCallResponse('alpha'), 'ok', functionCallResponse('beta'), 'ok'],
        }),
        tools: [set],
      }),
    );
    seen.headers.length = 0;
    token = 'first-token';
    await run('one');
    expect(seen.headers.every((h) => h['x-tenant'] === 'acme')).toBe(true);
    expect(seen.headers.map((h) => h.authorization)).toContain('Bearer first-token');
    token = 'rotated-token';
    seen.headers.length = 0;
    await run('two');
    const posts = seen.headers.filter((h) => h['content-type']?.includes('application/json'));
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.every((h) => h.authorization === 'Bearer rotated-token')).toBe(true);
    await set.close();
  });

  it('uses the access token of an OAuth client provider', async () => {
    const authProvider: OAuthClientProvider = {
      redirectUrl: 'http://127.0.0.1/callback',
      clientMetadata: { redirect_uris: ['http://127.0.0.1/callback'], client_name: 'adk-test' },
      clientInformation: () => ({ client_id: 'adk-test' }),
      tokens: () => ({ access_token: 'oauth-access-token', token_type: 'Bearer' }),
      saveTokens: () => undefined,
      redirectToAuthorization: () => undefined,
      saveCodeVerifier: () => undefined,
      codeVerifier: () => 'verifier',
    };
    const set = new McpToolset({ name: 'edges', connection: { type: 'http', url, authProvider } });
    seen.headers.length = 0;
    expect((await set.listTools()).length).toBeGreaterThan(0);
    const posts = seen.headers.filter((h) => h['content-type']?.includes('application/json'));
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.every((h) => h.authorization === 'Bearer oauth-access-token')).toBe(true);
    await set.close();
  });

  it('gives audio to the model as inline data', async () => {
    const set = toolset();
    const model = new ScriptedModel({ script: [functionCallResponse('beep'), 'heard it'] });
    const { run } = runnerFor(new LlmAgent({ name: 'a', model, tools: [set] }));
    const events = await run('beep');
    expect(responsesOf(events)[0]?.response).toEqual({
      result: 'a beep',
      content: [{ type: 'audio', mimeType: 'audio/wav', data: expect.any(String) }],
    });
    expect(model.requests[1]?.contents.at(-1)?.parts.at(-1)).toEqual({
      inlineData: { mimeType: 'audio/wav', data: Buffer.from('RIFF....WAVE').toString('base64') },
    });
    await set.close();
  });

  it('gives a binary resource to the model as inline data when the filter keeps no server tool', async () => {
    const set = new McpToolset({
      name: 'edges',
      connection: { type: 'http', url },
      toolFilter: [],
      resources: true,
    });
    const model = new ScriptedModel({
      script: [functionCallResponse('read_resource', { uri: 'edges://chirp.wav' }), 'heard the chirp'],
    });
    const { run } = runnerFor(new LlmAgent({ name: 'a', model, tools: [set] }));
    await run('play the chirp');
    expect(model.requests[0]?.tools?.map((t) => t.name)).toEqual(['list_resources', 'read_resource']);
    const turn = model.requests[1]?.contents.at(-1);
    expect(turn?.parts[0]?.functionResponse?.response).toEqual({
      content: [
        {
          type: 'resource',
          uri: 'edges://chirp.wav',
          mimeType: 'audio/wav',
          blob: 'attached after this response as inline data',
        },
      ],
    });
    expect(turn?.parts.at(-1)).toEqual({ inlineData: { mimeType: 'audio/wav', data: CHIRP } });
    await set.close();
  });

  it('gives media to the model in concurrent runs whose tool filters keep different tools', async () => {
    // The first run keeps only beep; the second keeps alpha and beep. The second run lists its
    // tools while the first is between listing its tools and building its model request.
    const set = new McpToolset({
      name: 'edges',
      connection: { type: 'http', url },
      toolFilter: (tool, context) =>
        context.agentName === 'first' ? tool.mcpName === 'beep' : ['alpha', 'beep'].includes(tool.mcpName),
    });
    let reached = () => {};
    const firstWaits = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let instructions = 0;
    const firstModel = new ScriptedModel({ script: [functionCallResponse('beep'), 'first heard it'] });
    const first = runnerFor(
      new LlmAgent({
        name: 'first',
        model: firstModel,
        tools: [set],
        instruction: async () => {
          if (++instructions === 2) {
            reached();
            await gate;
          }
          return 'Listen.';
        },
      }),
    );
    const secondModel = new ScriptedModel({ script: [functionCallResponse('beep'), 'second heard it'] });
    const second = runnerFor(new LlmAgent({ name: 'second', model: secondModel, tools: [set] }));

    const firstRun = first.run('beep');
    await firstWaits;
    await second.run('beep');
    release();
    await firstRun;

    const audio = {
      inlineData: { mimeType: 'audio/wav', data: Buffer.from('RIFF....WAVE').toString('base64') },
    };
    expect(firstModel.requests[0]?.tools?.map((t) => t.name)).toEqual(['beep']);
    expect(secondModel.requests[0]?.tools?.map((t) => t.name)).toEqual(['alpha', 'beep']);
    expect(secondModel.requests[1]?.contents.at(-1)?.parts.at(-1)).toEqual(audio);
    expect(firstModel.requests[1]?.contents.at(-1)?.parts.at(-1)).toEqual(audio);
    // Attached once, not once per tool of the toolset.
    expect(secondModel.requests[1]?.contents.at(-1)?.parts.filter((p) => p.inlineData)).toHaveLength(1);
    await set.close();
  });

  it('answers with an error response when a call exceeds its timeout, and the server sees it cancelled', async () => {
    const set = toolset();
    const model = new ScriptedModel({ script: [functionCallResponse('slow'), 'too slow'] });
    const { run } = runnerFor(new LlmAgent({ name: 'a', model, tools: [set] }));
    seen.cancelled = 0;
    const events = await run('go');
    expect(responsesOf(events)[0]?.response.error).toMatch(
      /MCP server "edges" did not answer tools\/call "slow" in time.*raise the timeout/,
    );
    expect(events.at(-1)?.content?.parts[0]?.text).toBe('too slow');
    await expect.poll(() => seen.cancelled).toBe(1);
    await set.close();
  });

  it('sends notifications/cancelled when the run is aborted', async () => {
    const set = new McpToolset({ name: 'edges', connection: { type: 'http', url } });
    const { run } = runnerFor(
      new LlmAgent({
        name: 'a',
        model: new ScriptedModel({ script: [functionCallResponse('slow')] }),
        tools: [set],
      }),
    );
    seen.cancelled = 0;
    const controller = new AbortController();
    // Abort once the call is in flight on the server (a fixed delay races the lazy connect).
    seen.slowStarted = () => controller.abort();
    const events = await run('go', { signal: controller.signal });
    expect(events.at(-1)?.errorCode).toBe('CANCELLED');
    await expect.poll(() => seen.cancelled).toBe(1);
    seen.slowStarted = () => {};
    await set.close();
  });
});
