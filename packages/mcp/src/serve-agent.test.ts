// serveAgentAsMcp: the official SDK client calls an ADK agent served over Streamable HTTP and
// stdio, and our own McpToolset uses the served agent as a tool (one HTTP server for the file).
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import {
  contentText,
  FunctionTool,
  type GetSessionParams,
  InMemorySessionService,
  LlmAgent,
  type LlmRequest,
  Runner,
  type Session,
} from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { responsesOf, runnerFor } from './__fixtures__/servers.js';
import { type McpAgentServer, McpToolset, serveAgentAsMcp } from './index.js';

const add = new FunctionTool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => ({ sum: a + b }),
});

/** Answers with the number of user messages it has seen in the conversation, or fails on 'fail'. */
const model = new ScriptedModel({
  respond: (request: LlmRequest) => {
    const last = contentText(request.contents.at(-1));
    if (last === 'fail') return new Error('the model is down');
    if (last === 'use add') return functionCallResponse('add', { a: 2, b: 3 });
    if (request.contents.at(-1)?.parts[0]?.functionResponse) return 'added';
    const turns = request.contents.filter((c) => c.role === 'user' && contentText(c) !== '').length;
    return `turn ${turns}: ${last}`;
  },
});
const agent = new LlmAgent({ name: 'helper', description: 'A helpful agent.', model, tools: [add] });

let served: McpAgentServer;
let client: Client;

beforeAll(async () => {
  served = await serveAgentAsMcp(agent, { transport: { type: 'http', port: 0 }, exposeTools: true });
  client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url as string)));
});

afterAll(async () => {
  await client?.close();
  await served?.close();
});

describe('serveAgentAsMcp over Streamable HTTP, called by the MCP SDK client', () => {
  it('lists the agent as a tool taking a message and an optional session id, and its own tools', async () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['helper', 'add']);
    expect(tools[0]).toMatchObject({
      description: 'A helpful agent.',
      inputSchema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
    });
    expect(tools[1]?.inputSchema).toMatchObject({
      properties: { a: { type: 'number' }, b: { type: 'number' } },
    });
  });

  it('answers a message, and continues the conversation with the session id it returned', async () => {
    const first = await client.callTool({ name: 'helper', arguments: { message: 'hello' } });
    expect(first.isError).toBeFalsy();
    expect(first.content).toEqual([{ type: 'text', text: 'turn 1: hello' }]);
    const { sessionId } = first.structuredContent as { sessionId: string; response: string };
    expect(first.structuredContent).toEqual({ response: 'turn 1: hello', sessionId });

    const second = await client.callTool({ name: 'helper', arguments: { message: 'again', sessionId } });
    expect(second.structuredContent).toEqual({ response: 'turn 2: again', sessionId });
    const fresh = await client.callTool({ name: 'helper', arguments: { message: 'new' } });
    expect((fresh.structuredContent as { response: string }).response).toBe('turn 1: new');
  });

  it('reports the agent’s steps as progress', async () => {
    const steps: string[] = [];
    const result = await client.callTool({ name: 'helper', arguments: { message: 'use add' } }, undefined, {
      onprogress: (p) => steps.push(p.message ?? ''),
    });
    expect(result.content).toEqual([{ type: 'text', text: 'added' }]);
    expect(steps).toEqual(['helper: calling add', 'helper: tool results', 'helper: added']);
  });

  it('runs an exposed tool directly', async () => {
    const result = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
    expect(result.structuredContent).toEqual({ sum: 42 });
  });

  it('returns a failing run as an error result', async () => {
    const result = await client.callTool({ name: 'helper', arguments: { message: 'fail' } });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining('the model is down') }]);
    const missing = await client.callTool({ name: 'helper', arguments: {} });
    expect(missing.isError).toBe(true);
  });
});

describe('serveAgentAsMcp with calls racing for one new session id', () => {
  it('answers both calls, whichever created the session', async () => {
    /** Looks sessions up slowly, so both calls see the session missing before either creates it. */
    class SlowLookups extends InMemorySessionService {
      override async getSession(params: GetSessionParams): Promise<Session | undefined> {
        const found = await super.getSession(params);
        await new Promise((resolve) => setTimeout(resolve, 30));
        return found;
      }
    }
    const sessionService = new SlowLookups();
    const runner = new Runner({ appName: 'race', agent, sessionService });
    const server = await serveAgentAsMcp(runner, { transport: { type: 'http' } });
    const racer = new Client({ name: 'racer', version: '1.0.0' });
    await racer.connect(new StreamableHTTPClientTransport(new URL(server.url as string)));
    try {
      const results = await Promise.all(
        ['one', 'two'].map((message) =>
          racer.callTool({ name: 'helper', arguments: { message, sessionId: 'fresh-session' } }),
        ),
      );
      for (const result of results) {
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toMatchObject({ sessionId: 'fresh-session' });
      }
      const session = await sessionService.getSession({
        appName: 'race',
        userId: 'mcp',
        sessionId: 'fresh-session',
      });
      expect(
        session?.events
          .filter((e) => e.author === 'user')
          .map((e) => contentText(e.content))
          .sort(),
      ).toEqual(['one', 'two']);
    } finally {
      await racer.close();
      await server.close();
      await runner.close();
    }
  });
});

describe('serveAgentAsMcp sessions that go idle', () => {
  const wait = new FunctionTool({
    name: 'wait',
    description: 'Waits that many milliseconds',
    parameters: z.object({ ms: z.number() }),
    execute: async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { waited: ms };
    },
  });
  const listRequest = (sessionId: string) =>
    fetch(served.url as string, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
  let served: McpAgentServer;
  beforeAll(async () => {
    served = await serveAgentAsMcp(new LlmAgent({ name: 'idler', model, tools: [wait] }), {
      transport: { type: 'http', sessionIdleTimeoutMs: 150 },
      exposeTools: true,
    });
  });
  afterAll(() => served?.close());

  const connect = async () => {
    const transport = new StreamableHTTPClientTransport(new URL(served.url as string));
    const idle = new Client({ name: 'idle', version: '1.0.0' });
    await idle.connect(transport);
    return { idle, sessionId: transport.sessionId as string };
  };

  it('closes and forgets a session without requests for the idle timeout', async () => {
    const { idle, sessionId } = await connect();
    try {
      expect((await listRequest(sessionId)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 400));
      const gone = await listRequest(sessionId);
      expect(gone.status).toBe(404);
      expect(await gone.json()).toMatchObject({ error: { message: 'Session not found' } });
    } finally {
      await idle.close();
    }
  });

  it('keeps a session whose request takes longer than the idle timeout', async () => {
    const { idle, sessionId } = await connect();
    try {
      const result = await idle.callTool({ name: 'wait', arguments: { ms: 400 } });
      expect(result.structuredContent).toEqual({ waited: 400 });
      expect((await listRequest(sessionId)).status).toBe(200);
    } finally {
      await idle.close();
    }
  });
});

describe('McpToolset against our own served agent', () => {
  it('lets another agent call the served agent as a tool', async () => {
    const remote = new McpToolset({
      name: 'helper-server',
      connection: { type: 'http', url: served.url as string },
      toolFilter: ['helper'],
    });
    const outer = new ScriptedModel({
      script: [functionCallResponse('helper', { message: 'hi from outside' }), 'the helper said hi'],
    });
    const { run, runner } = runnerFor(new LlmAgent({ name: 'outer', model: outer, tools: [remote] }));
    const events = await run('ask the helper');
    const response = responsesOf(events)[0]?.response;
    expect(response).toEqual({
      result: 'turn 1: hi from outside',
      structuredContent: { response: 'turn 1: hi from outside', sessionId: expect.any(String) },
    });
    expect(outer.requests[0]?.tools?.[0]).toMatchObject({
      name: 'helper',
      parameters: { required: ['message'] },
    });
    await runner.close();
  });
});

describe('serveAgentAsMcp over stdio', () => {
  it('answers the MCP SDK client that spawned it', async () => {
    const stdio = new Client({ name: 'test-client', version: '1.0.0' });
    await stdio.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', fileURLToPath(new URL('./__fixtures__/stdio-agent.ts', import.meta.url))],
        stderr: 'inherit',
      }),
    );
    try {
      const { tools } = await stdio.listTools();
      expect(tools.map((t) => t.name)).toEqual(['echoer']);
      const result = await stdio.callTool({ name: 'echoer', arguments: { message: 'over stdio' } });
      expect(result.content).toEqual([{ type: 'text', text: 'echo: over stdio' }]);
    } finally {
      await stdio.close();
    }
  });
});

describe('serveAgentAsMcp over HTTP on a loopback address', () => {
  it('refuses a request whose Host header is not local (DNS rebinding)', async () => {
    const url = new URL(served.url as string);
    const response = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            host: 'evil.example:80',
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'x', version: '1' },
          },
        }),
      );
    });
    expect(response).toBe(403);
  });
});
