// McpToolset against @modelcontextprotocol/server-everything over stdio (one server process for
// the file, shared by the tests like a real toolset shares it across runs).
import {
  type Content,
  type Event,
  LlmAgent,
  type LlmRequest,
  REQUEST_CONFIRMATION,
  ReadonlyContext,
} from '@adk/core';
import { functionCallResponse, functionCallsResponse, ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childPids, everythingBin, responsesOf, runnerFor } from './__fixtures__/servers.js';
import { loadMcpPrompt, type McpProgress, McpTool, McpToolset } from './index.js';

const progress: McpProgress[] = [];
const toolset = new McpToolset({
  name: 'everything',
  connection: { type: 'stdio', command: process.execPath, args: [everythingBin, 'stdio'] },
  requireConfirmation: ['toggle-simulated-logging'],
  resources: true,
  onProgress: (p) => progress.push(p),
});

/** An agent whose scripted model makes `calls` (one turn each, or several at once), then answers 'done'. */
function agentCalling(steps: Parameters<typeof functionCallsResponse>[0][]) {
  const model = new ScriptedModel({
    script: [...steps.map((calls) => functionCallsResponse(calls)), 'done'],
  });
  return { model, ...runnerFor(new LlmAgent({ name: 'assistant', model, tools: [toolset] })) };
}

beforeAll(async () => {
  // Opens the session (and starts the server) once for the file. Starting the server's Node process
  // takes seconds on a loaded machine.
  await toolset.listTools();
}, 120_000);

afterAll(async () => {
  await toolset.close();
});

describe('McpToolset over stdio (server-everything)', () => {
  it('exposes every tool with the server’s JSON Schema as its parameters', async () => {
    const definitions = await toolset.listTools();
    const { runner } = agentCalling([]);
    const tools = await toolset.getTools(new ReadonlyContext(fakeContext(runner)));
    const sum = tools.find((t) => t.name === 'get-sum') as McpTool;
    expect(sum).toBeInstanceOf(McpTool);
    const definition = definitions.find((d) => d.name === 'get-sum');
    expect(sum.declaration().parameters).toEqual(definition?.inputSchema);
    expect(sum.declaration().parameters).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
    });
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['echo', 'get-tiny-image', 'list_resources', 'read_resource']),
    );
    // A tool that only runs as an MCP task (registered after initialization, announced with
    // notifications/tools/list_changed) is offered as a long-running tool (see tasks.test.ts).
    expect(definitions.map((d) => d.name)).toContain('simulate-research-query');
    const research = tools.find((t) => t.name === 'simulate-research-query');
    expect(research?.isLongRunning).toBe(true);
  });

  it('filters tools by name or predicate, and prefixes their names', async () => {
    const filtered = new McpToolset({
      connection: { type: 'stdio', command: process.execPath, args: [everythingBin] },
      toolFilter: ['echo', 'get-sum'],
      toolNamePrefix: 'ev',
    });
    const byPredicate = new McpToolset({
      connection: { type: 'stdio', command: process.execPath, args: [everythingBin] },
      toolFilter: (tool) => tool.annotations?.readOnlyHint === true && tool.mcpName.startsWith('get-'),
    });
    try {
      const { runner } = agentCalling([]);
      const ctx = new ReadonlyContext(fakeContext(runner));
      expect((await filtered.getTools(ctx)).map((t) => t.name).sort()).toEqual(['ev_echo', 'ev_get-sum']);
      const names = (await byPredicate.getTools(ctx)).map((t) => t.name);
      expect(names.length).toBeGreaterThan(0);
      expect(names.every((n) => n.startsWith('get-'))).toBe(true);
      expect(names).not.toContain('echo');
    } finally {
      await Promise.all([filtered.close(), byPredicate.close()]);
    }
  });

  it('maps text, image, embedded resources, structured content and errors into function responses', async () => {
    const { run, model } = agentCalling([
      [
        { name: 'echo', args: { message: 'hello' } },
        { name: 'get-tiny-image', args: {} },
        { name: 'get-structured-content', args: { location: 'New York' } },
        { name: 'get-resource-reference', args: { resourceType: 'Text', resourceId: 2 } },
        { name: 'get-sum', args: { a: 'one', b: 2 } },
      ],
    ]);
    const events = await run('go');
    const byName = Object.fromEntries(responsesOf(events).map((r) => [r.name, r.response]));
    expect(byName.echo).toEqual({ result: 'Echo: hello' });

    const image = byName['get-tiny-image'] as { result: string; content: Record<string, unknown>[] };
    expect(image.content).toEqual([{ type: 'image', mimeType: 'image/png', data: expect.any(String) }]);
    expect(image.result).toContain('MCP logo');

    expect(byName['get-structured-content']).toMatchObject({
      structuredContent: { temperature: expect.any(Number), conditions: expect.any(String) },
    });
    expect(byName['get-resource-reference']).toMatchObject({
      content: [
        {
          type: 'resource',
          uri: 'demo://resource/dynamic/text/2',
          mimeType: 'text/plain',
          text: expect.any(String),
        },
      ],
    });
    // Invalid arguments come back as an isError result: an error response to the model.
    expect(byName['get-sum']).toEqual({ error: expect.stringMatching(/validation|invalid/i) });

    // The model sees the image as an inline data part after the responses, not as base64 in JSON.
    const second = model.requests[1] as LlmRequest;
    const turn = second.contents.at(-1) as Content;
    expect(turn.parts.at(-1)).toEqual({
      inlineData: { mimeType: 'image/png', data: image.content[0]?.data },
    });
    const sent = turn.parts.find((p) => p.functionResponse?.name === 'get-tiny-image');
    expect(JSON.stringify(sent)).not.toContain(String(image.content[0]?.data));
  });

  it('reports progress of a long-running call', async () => {
    progress.length = 0;
    const { run } = agentCalling([
      [{ name: 'trigger-long-running-operation', args: { duration: 0.3, steps: 3 } }],
    ]);
    const events = await run('go');
    expect(responsesOf(events)[0]?.response.result).toMatch(/Long running operation completed/);
    // The last notification may cross the result (the SDK drops progress once the result is in).
    expect(progress.slice(0, 2).map((p) => [p.server, p.tool, p.progress, p.total])).toEqual([
      ['everything', 'trigger-long-running-operation', 1, 3],
      ['everything', 'trigger-long-running-operation', 2, 3],
    ]);
  });

  it('cancels the in-flight call when the run is aborted, and the session stays usable', async () => {
    progress.length = 0;
    const controller = new AbortController();
    const { run } = agentCalling([
      [{ name: 'trigger-long-running-operation', args: { duration: 20, steps: 20 } }],
    ]);
    const started = Date.now();
    const pending = run('go', { signal: controller.signal });
    await waitFor(() => progress.length > 0);
    controller.abort();
    const events = await pending;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(events.at(-1)?.errorCode).toBe('CANCELLED');
    const next = agentCalling([[{ name: 'echo', args: { message: 'still there' } }]]);
    expect(responsesOf(await next.run('again'))[0]?.response).toEqual({ result: 'Echo: still there' });
  });

  it('asks for confirmation before calling a tool marked so, and calls it once confirmed', async () => {
    const { run } = agentCalling([[{ name: 'toggle-simulated-logging', args: {} }]]);
    const first = await run('start logging', { sessionId: 'confirm' });
    const request = first
      .flatMap((e) => e.content?.parts ?? [])
      .find((p) => p.functionCall?.name === REQUEST_CONFIRMATION);
    expect(request?.functionCall?.args).toMatchObject({
      originalFunctionCall: { name: 'toggle-simulated-logging' },
    });
    expect(responsesOf(first)).toEqual([]);
    const answer: Content = {
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: request?.functionCall?.id as string,
            name: REQUEST_CONFIRMATION,
            response: { confirmed: true },
          },
        },
      ],
    };
    const second = await run(answer, { sessionId: 'confirm' });
    const response = responsesOf(second).find((r) => r.name === 'toggle-simulated-logging');
    expect(response?.response.result).toMatch(/logging/i);
  });

  it('lists and reads resources, binary contents reaching the model as inline data', async () => {
    const { run, model } = agentCalling([
      [{ name: 'list_resources', args: {} }],
      [{ name: 'read_resource', args: { uri: 'demo://resource/dynamic/blob/1' } }],
    ]);
    const events = await run('what resources are there?');
    const [listed, read] = responsesOf(events) as [
      ReturnType<typeof responsesOf>[number],
      ReturnType<typeof responsesOf>[number],
    ];
    expect((listed.response.resources as { uri: string }[]).length).toBeGreaterThan(0);
    expect(read.response.content).toEqual([
      {
        type: 'resource',
        uri: 'demo://resource/dynamic/blob/1',
        mimeType: expect.any(String),
        blob: expect.any(String),
      },
    ]);
    const turn = (model.requests[2] as LlmRequest).contents.at(-1) as Content;
    expect(turn.parts.at(-1)?.inlineData?.data).toBe((read.response.content as { blob: string }[])[0]?.blob);
  });

  it('loads a prompt as an instruction', async () => {
    expect(await loadMcpPrompt(toolset, 'simple-prompt')).toMatch(/\S/);
    expect(await loadMcpPrompt(toolset, 'args-prompt', { city: 'Lisbon' })).toContain('Lisbon');
  });

  it('reconnects on the next call after the server process is killed mid-session', async () => {
    const [pid] = childPids(everythingBin);
    expect(pid).toBeDefined();
    process.kill(pid as number, 'SIGKILL');
    await waitFor(() => !childPids(everythingBin).includes(pid as number));
    const { run } = agentCalling([[{ name: 'echo', args: { message: 'after the crash' } }]]);
    const events = await run('go');
    expect(responsesOf(events)[0]?.response).toEqual({ result: 'Echo: after the crash' });
    expect(childPids(everythingBin)).not.toContain(pid);
    expect(childPids(everythingBin)).toHaveLength(1);
  });

  it('retries a call cut off by the server dying, once, on a fresh process', async () => {
    progress.length = 0;
    const { run } = agentCalling([
      [{ name: 'trigger-long-running-operation', args: { duration: 0.6, steps: 3 } }],
    ]);
    const pending = run('go');
    await waitFor(() => progress.length > 0);
    const [pid] = childPids(everythingBin);
    process.kill(pid as number, 'SIGKILL');
    const events = await pending;
    expect(responsesOf(events)[0]?.response.result).toMatch(/Long running operation completed/);
    expect(childPids(everythingBin)).not.toContain(pid);
  });

  it('Runner.close() closes the toolset, which stops the server process', async () => {
    const own = new McpToolset({
      connection: { type: 'stdio', command: process.execPath, args: [everythingBin, 'stdio', 'own'] },
    });
    const { run, runner } = runnerFor(
      new LlmAgent({
        name: 'a',
        model: new ScriptedModel({ script: [functionCallResponse('echo', { message: 'x' }), 'ok'] }),
        tools: [own],
      }),
    );
    await run('go');
    expect(childPids('stdio own')).toHaveLength(1);
    await runner.close();
    await waitFor(() => childPids('stdio own').length === 0);
  });
});

describe('a failing server', () => {
  it('becomes an error event naming the server and what to check, with its stderr', async () => {
    const broken = new McpToolset({
      name: 'broken',
      connection: {
        type: 'stdio',
        command: process.execPath,
        args: ['-e', 'console.error("no config file"); process.exit(3)'],
      },
    });
    const { run } = runnerFor(
      new LlmAgent({ name: 'a', model: new ScriptedModel({ script: ['unused'] }), tools: [broken] }),
    );
    const events = await run('go');
    const last = events.at(-1) as Event;
    expect(last.errorCode).toBe('MCP_CONNECTION');
    expect(last.errorMessage).toMatch(/MCP server "broken" \(stdio: .*\) could not be connected/);
    expect(last.errorMessage).toMatch(/Check that the command is installed/);
    expect(last.errorMessage).toContain('no config file');
  });

  it('that never answers times out instead of hanging the run', async () => {
    const silent = new McpToolset({
      name: 'silent',
      connection: { type: 'stdio', command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
      connectTimeoutMs: 500,
    });
    const { run } = runnerFor(
      new LlmAgent({ name: 'a', model: new ScriptedModel({ script: ['unused'] }), tools: [silent] }),
    );
    const started = Date.now();
    const last = (await run('go')).at(-1) as Event;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(last.errorCode).toBe('MCP_CONNECTION');
    expect(last.errorMessage).toMatch(/"silent".*timed out/);
    await silent.close();
  });

  it('unreachable over HTTP becomes an error event naming the URL', async () => {
    const down = new McpToolset({
      name: 'remote',
      connection: { type: 'http', url: 'http://127.0.0.1:9/mcp' },
    });
    const { run } = runnerFor(
      new LlmAgent({ name: 'a', model: new ScriptedModel({ script: ['unused'] }), tools: [down] }),
    );
    const last = (await run('go')).at(-1) as Event;
    expect(last.errorCode).toBe('MCP_CONNECTION');
    expect(last.errorMessage).toMatch(
      /MCP server "remote" \(Streamable HTTP: http:\/\/127\.0\.0\.1:9\/mcp\).*Check the URL/,
    );
  });

  it('keeps a password or query credential of the URL out of the error event', async () => {
    const down = new McpToolset({
      name: 'remote',
      connection: { type: 'http', url: 'http://me:pw-secret-1@127.0.0.1:9/mcp?api_key=q-secret-2&v=1' },
    });
    const { run } = runnerFor(
      new LlmAgent({ name: 'a', model: new ScriptedModel({ script: ['unused'] }), tools: [down] }),
    );
    const last = (await run('go')).at(-1) as Event;
    expect(last.errorCode).toBe('MCP_CONNECTION');
    expect(last.errorMessage).toContain('http://me:***@127.0.0.1:9/mcp?api_key=***&v=***');
    expect(JSON.stringify(last)).not.toMatch(/pw-secret-1|q-secret-2/);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** An invocation context for calling getTools directly (outside a run). */
function fakeContext(runner: ReturnType<typeof runnerFor>['runner']) {
  return {
    invocationId: 'i',
    agent: runner.agent,
    userId: 'u',
    session: { id: 's', appName: 'a', userId: 'u', state: {}, events: [], lastUpdateTime: 0 },
    userContent: undefined,
    signal: new AbortController().signal,
    shared: { llmCalls: 0, ended: false, tempState: {} },
  } as unknown as ConstructorParameters<typeof ReadonlyContext>[0];
}
