import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AgentTool,
  type BaseAgent,
  type BaseTool,
  type Event,
  exitLoopTool,
  FunctionTool,
  InMemorySessionService,
  isAdkError,
  LlmAgent,
  LoopAgent,
  loadArtifactsTool,
  loadMemoryTool,
  type ModelBuiltInTool,
  ParallelAgent,
  preloadMemoryTool,
  Runner,
  SequentialAgent,
  userContent,
} from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { McpToolset } from '@adk/mcp';
import { OpenApiToolset } from '@adk/openapi';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AgentConfigError,
  clearConfigReferences,
  ExampleTool,
  isConfigApp,
  LongRunningFunctionTool,
  loadAgentFromConfig,
  parseAgentConfig,
  readAgentConfig,
  registerConfigReferences,
} from './index.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'agents');
const weatherRoot = join(fixtures, 'weather_app', 'root_agent.yaml');

// Under the package's node_modules so that modules written there resolve @adk/core and zod.
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
mkdirSync(join(packageDir, 'node_modules', '.tmp'), { recursive: true });
const temp = mkdtempSync(join(packageDir, 'node_modules', '.tmp', 'adk-config-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
afterEach(() => clearConfigReferences());

let appCount = 0;
/** A throwaway agents folder with one app whose files are given (paths relative to the app). */
function app(files: Record<string, string>): { root: string; dir: string; agents: string } {
  const agents = join(temp, `agents${++appCount}`);
  const dir = join(agents, 'my_app');
  for (const [name, text] of Object.entries(files)) {
    const file = join(name.startsWith('../') ? agents : dir, name.replace(/^\.\.\//, ''));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return { root: join(dir, 'root_agent.yaml'), dir, agents };
}

async function loadError(file: string, options = {}): Promise<AgentConfigError> {
  const error = await loadAgentFromConfig(file, options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AgentConfigError);
  return error as AgentConfigError;
}

/** Asserts the error names the file, the YAML path, what was expected and what was found. */
function expectError(
  error: AgentConfigError,
  at: { file: string; yamlPath: string; expected: RegExp | string; found: RegExp | string },
) {
  expect(error.file).toBe(at.file);
  expect(error.yamlPath).toBe(at.yamlPath);
  expect(error.expected).toMatch(at.expected);
  expect(error.found).toMatch(at.found);
  expect(error.message).toContain(at.file);
  expect(error.message).toContain(`at ${at.yamlPath}:`);
  expect(error.message).toContain(`expected ${error.expected}`);
  expect(error.message).toContain(`found ${error.found}`);
  expect(isAdkError(error)).toBe(true);
}

async function collect(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const event of iterable) out.push(event);
  return out;
}

describe('loadAgentFromConfig: every field of the fixture app', () => {
  it('builds the LlmAgent with its fields, tools, callbacks and sub-agents', async () => {
    const root = (await loadAgentFromConfig(weatherRoot)) as LlmAgent;
    expect(root).toBeInstanceOf(LlmAgent);
    expect(root.name).toBe('weather_root');
    expect(root.description).toBe('Answers questions about the weather.');
    expect(root.model).toBeInstanceOf(ScriptedModel);
    expect(root.instruction).toBe('You tell the weather for {city?}.');
    expect(root.staticInstruction).toBe('You are a weather assistant.');
    expect(root.generateConfig).toEqual({
      temperature: 0.2,
      maxOutputTokens: 256,
      topP: 0.9,
      thinking: { budgetTokens: 128 },
    });
    expect(root.outputKey).toBe('last_answer');
    expect(root.includeContents).toBe('default');
    expect(root.disallowTransferToParent).toBe(true);
    expect(root.disallowTransferToPeers).toBe(true);
    expect(root.outputSchema?.safeParse({ city: 'Paris', forecast: 'rain' }).success).toBe(true);
    expect(root.callbacks.beforeModel).toHaveLength(1);
    expect(root.callbacks.afterModel).toHaveLength(1);
    expect(root.callbacks.beforeTool).toHaveLength(1);
    expect(root.callbacks.afterTool).toHaveLength(1);
    const agentCallbacks = root as unknown as {
      beforeAgentCallbacks: unknown[];
      afterAgentCallbacks: unknown[];
    };
    expect(agentCallbacks.beforeAgentCallbacks).toHaveLength(1);
    expect(agentCallbacks.afterAgentCallbacks).toHaveLength(1);

    const tools = root.tools as BaseTool[];
    expect(tools.map((t) => t.name)).toEqual([
      'get_weather',
      'exit_loop',
      'load_memory',
      'preload_memory',
      'load_artifacts',
      'google_search',
      'url_context',
      'google_maps_grounding',
      'asker',
      'start_approval',
      'example_tool',
      'greet',
    ]);
    expect(tools[0]).toBeInstanceOf(FunctionTool);
    expect(tools[1]).toBe(exitLoopTool);
    expect(tools[2]).toBe(loadMemoryTool);
    expect(tools[3]).toBe(preloadMemoryTool);
    expect(tools[4]).toBe(loadArtifactsTool);
    expect((tools[5] as ModelBuiltInTool).spec).toEqual({ type: 'googleSearch' });
    expect((tools[6] as ModelBuiltInTool).spec).toEqual({ type: 'urlContext' });
    expect((tools[7] as ModelBuiltInTool).spec).toEqual({ type: 'googleMaps' });
    const agentTool = tools[8] as AgentTool;
    expect(agentTool).toBeInstanceOf(AgentTool);
    expect(agentTool.agent.name).toBe('asker');
    // input_schema of the referenced agent becomes the AgentTool's parameters.
    expect(agentTool.declaration().parameters).toMatchObject({ properties: { city: { type: 'string' } } });
    expect(tools[9]).toBeInstanceOf(LongRunningFunctionTool);
    expect(tools[9]?.isLongRunning).toBe(true);
    expect(tools[9]?.declaration()?.name).toBe('start_approval');
    // ADK's note on long-running tools, as the code class adds it.
    expect(tools[9]?.declaration()?.description).toBe(
      `${tools[9]?.description}\n\nNOTE: This is a long-running operation. Do not call this tool again if it has already returned some intermediate or pending status.`,
    );
    expect(tools[10]).toBeInstanceOf(ExampleTool);
    expect((tools[10] as ExampleTool).examples[0]?.output[0]?.parts[0]?.functionCall?.name).toBe(
      'get_weather',
    );

    const [helper, prebuilt] = root.subAgents;
    expect(helper).toBeInstanceOf(LoopAgent);
    expect((helper as LoopAgent).maxIterations).toBe(3);
    expect(helper?.subAgents[0]).toBeInstanceOf(SequentialAgent);
    const fanOut = helper?.subAgents[0]?.subAgents[0];
    expect(fanOut).toBeInstanceOf(ParallelAgent);
    expect(fanOut?.subAgents[0]?.name).toBe('echo');
    expect((fanOut?.subAgents[0] as unknown as { reply?: string } | undefined)?.reply).toBe(
      'hello from a custom class',
    );
    expect(prebuilt?.name).toBe('prebuilt');
  });

  it('maps the remaining field forms: Content static_instruction, include_contents none, every generate_content_config key, ADK dotted class and tool names', async () => {
    const { root } = app({
      'root_agent.yaml': [
        'agent_class: google.adk.agents.LlmAgent',
        'name: forms',
        'instruction: x',
        'include_contents: none',
        'static_instruction:',
        '  role: user',
        '  parts: [{ text: "You are " }, { text: "precise." }]',
        'generate_content_config:',
        '  temperature: 0.5',
        '  top_p: 0.8',
        '  top_k: 40',
        '  maxOutputTokens: 100',
        '  stop_sequences: [END]',
        '  presence_penalty: 0.1',
        '  frequencyPenalty: 0.2',
        '  seed: 7',
        '  response_mime_type: application/json',
        '  response_schema: { type: object }',
        '  thinkingConfig: { includeThoughts: true, thinkingLevel: HIGH }',
        '  labels: { team: core }',
        '  safety_settings: [{ category: HARM_CATEGORY_HARASSMENT, threshold: BLOCK_NONE }]',
        'tools:',
        '  - name: google.adk.tools.exit_loop',
        'before_model_callbacks:',
        '  - name: make_callback',
        '    args: [{ value: first }, { name: label, value: named }]',
      ].join('\n'),
    });
    let made: unknown[] = [];
    const agent = (await loadAgentFromConfig(root, {
      references: {
        make_callback: (...args: unknown[]) => {
          made = args;
          return () => undefined;
        },
      },
    })) as LlmAgent;
    expect(agent).toBeInstanceOf(LlmAgent);
    expect(agent.staticInstruction).toBe('You are precise.');
    expect(agent.includeContents).toBe('none');
    expect(agent.generateConfig).toEqual({
      temperature: 0.5,
      topP: 0.8,
      topK: 40,
      maxOutputTokens: 100,
      stopSequences: ['END'],
      presencePenalty: 0.1,
      frequencyPenalty: 0.2,
      seed: 7,
      responseMimeType: 'application/json',
      responseSchema: { type: 'object' },
      thinking: { includeThoughts: true, effort: 'high' },
      labels: { team: 'core' },
      providerOptions: {
        gemini: { safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }] },
      },
    });
    expect(agent.tools[0]).toBe(exitLoopTool);
    // CodeConfig args: unnamed values positionally, named ones as one object after them.
    expect(made).toEqual(['first', { label: 'named' }]);
    expect(agent.callbacks.beforeModel).toHaveLength(1);
  });

  it('`Agent` is LlmAgent; the disallow flags default to false', async () => {
    const { root } = app({ 'root_agent.yaml': 'agent_class: Agent\nname: plain\ninstruction: x\n' });
    const agent = (await loadAgentFromConfig(root)) as LlmAgent;
    expect(agent).toBeInstanceOf(LlmAgent);
    expect([agent.disallowTransferToParent, agent.disallowTransferToPeers, agent.includeContents]).toEqual([
      false,
      false,
      'default',
    ]);
  });

  it('ExampleTool examples by code reference; McpToolset stdio_connection_params with its timeout', async () => {
    const examples = [
      {
        input: { role: 'user', parts: [{ text: 'a' }] },
        output: [{ role: 'model', parts: [{ text: 'b' }] }],
      },
    ];
    const { root, dir } = app({
      'root_agent.yaml': [
        'name: refs',
        'instruction: x',
        'tools:',
        '  - name: ExampleTool',
        '    args: { examples: shared.examples }',
        '  - name: McpToolset',
        '    args:',
        '      stdio_connection_params:',
        '        server_params: { command: node, args: [s.js], env: { K: v }, cwd: srv }',
        '        timeout: 3',
      ].join('\n'),
    });
    const agent = (await loadAgentFromConfig(root, {
      references: { 'shared.examples': examples },
    })) as LlmAgent;
    expect((agent.tools[0] as ExampleTool).examples).toBe(examples);
    expect((agent.tools[1] as unknown as { options: Record<string, unknown> }).options).toMatchObject({
      connection: { type: 'stdio', command: 'node', args: ['s.js'], env: { K: 'v' }, cwd: join(dir, 'srv') },
      connectTimeoutMs: 3000,
    });
  });

  it('reads and validates one file without building it', () => {
    const config = readAgentConfig(weatherRoot);
    expect(config.name).toBe('weather_root');
    expect(isConfigApp(join(fixtures, 'weather_app'))).toBe(true);
    expect(isConfigApp(fixtures)).toBe(false);
  });

  it('runs like a code agent: tools, callbacks that write state, output_key', async () => {
    const { root } = app({
      'root_agent.yaml': [
        'name: assistant',
        'model_code: { name: models.scripted }',
        'instruction: Help.',
        'output_key: answer',
        'tools:',
        '  - name: my_app.tools.add',
        'before_model_callbacks:',
        '  - name: my_app.tools.count',
      ].join('\n'),
      'tools.mjs': [
        "import { FunctionTool } from '@adk/core';",
        "import { z } from 'zod';",
        "export const add = new FunctionTool({ name: 'add', description: 'Adds.', parameters: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => ({ sum: a + b }) });",
        "export const count = ({ context }) => { context.state.set('calls', (context.state.get('calls') ?? 0) + 1); };",
      ].join('\n'),
    });
    const model = new ScriptedModel({
      script: [
        {
          content: {
            role: 'model',
            parts: [{ functionCall: { id: 'c1', name: 'add', args: { a: 2, b: 3 } } }],
          },
        },
        (request) =>
          `the sum is ${JSON.stringify(request.contents.at(-1)?.parts[0]?.functionResponse?.response)}`,
      ],
    });
    const agent = await loadAgentFromConfig(root, { references: { 'models.scripted': model } });
    const sessionService = new InMemorySessionService();
    const runner = new Runner({ appName: 'my_app', agent, sessionService, autoCreateSession: true });
    const events = await collect(
      runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('2+3?') }),
    );
    const final = events.at(-1);
    expect(final?.content?.parts[0]?.text).toBe('the sum is {"sum":5}');
    const session = await sessionService.getSession({ appName: 'my_app', userId: 'u', sessionId: 's' });
    expect(session?.state.calls).toBe(2);
    expect(session?.state.answer).toBe('the sum is {"sum":5}');
  });

  it('an ExampleTool adds its examples to the system instruction', async () => {
    const model = new ScriptedModel({ respond: (request) => request.systemInstruction ?? '' });
    const { root } = app({
      'root_agent.yaml': [
        'name: shown',
        'model_code: { name: m }',
        'instruction: Be brief.',
        'tools:',
        '  - name: ExampleTool',
        '    args:',
        '      examples:',
        '        - input: { role: user, parts: [{ text: ping }] }',
        '          output: [{ role: model, parts: [{ text: pong }] }]',
      ].join('\n'),
    });
    const agent = await loadAgentFromConfig(root, { references: { m: model } });
    const runner = new Runner({
      appName: 'a',
      agent,
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    const events = await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('hi') }));
    const text = events.at(-1)?.content?.parts[0]?.text ?? '';
    expect(text.startsWith('Be brief.')).toBe(true);
    expect(
      text.endsWith(
        '\n\n<EXAMPLES>\nBegin few-shot\nThe following are examples of user queries and model responses using the available tools.\n\n' +
          'EXAMPLE 1:\nBegin example\n[user]\nping\n[model]\npong\nEnd example\n\nEnd few-shot\n<EXAMPLES>',
      ),
    ).toBe(true);
    // As in ADK, only when the user's message begins with text.
    const image = await collect(
      runner.run({
        userId: 'u',
        sessionId: 's2',
        newMessage: {
          role: 'user',
          parts: [{ inlineData: { mimeType: 'image/png', data: 'AA==' } }, { text: 'hi' }],
        },
      }),
    );
    expect(image.at(-1)?.content?.parts[0]?.text).not.toContain('<EXAMPLES>');
  });

  it('registered names resolve before modules, bare or dotted', async () => {
    const tool = new FunctionTool({
      name: 'lookup',
      description: 'Looks up.',
      parameters: z.object({}),
      execute: () => 'found',
    });
    registerConfigReferences({ lookup: tool, 'shared.callbacks.audit': () => undefined });
    const { root } = app({
      'root_agent.yaml':
        'name: r\ninstruction: x\ntools: [{ name: lookup }]\nbefore_agent_callbacks: [{ name: shared.callbacks.audit }]\n',
    });
    const agent = (await loadAgentFromConfig(root)) as LlmAgent;
    expect(agent.tools[0]).toBe(tool);
  });

  it('code references with args call the export (model_code factory)', async () => {
    const root = join(fixtures, 'weather_app', 'root_agent.yaml');
    const { root: file } = app({
      'root_agent.yaml':
        'name: r\ninstruction: x\nmodel_code:\n  name: factory\n  args:\n    - value: hi there\n',
    });
    let made: unknown;
    const agent = (await loadAgentFromConfig(file, {
      references: {
        factory: (text: string) => {
          made = new ScriptedModel({ respond: () => text });
          return made;
        },
      },
    })) as LlmAgent;
    expect(agent.model).toBe(made);
    expect(root).toContain('weather_app');
  });

  it('McpToolset (stdio, http, sse) and OpenAPIToolset come from their optional packages', async () => {
    const spec = JSON.stringify({
      openapi: '3.0.0',
      info: { title: 't', version: '1' },
      paths: { '/ping': { get: { operationId: 'ping', responses: { '200': { description: 'ok' } } } } },
    });
    const { root } = app({
      'root_agent.yaml': [
        'name: r',
        'instruction: x',
        'tools:',
        '  - name: McpToolset',
        '    args:',
        '      stdio_server_params: { command: node, args: [server.js] }',
        '      tool_filter: [read_file]',
        '      tool_name_prefix: fs',
        '  - name: McpToolset',
        '    args:',
        '      streamable_http_connection_params: { url: "http://127.0.0.1:9/mcp", headers: { x-key: k }, timeout: 5 }',
        '  - name: McpToolset',
        '    args:',
        '      sse_connection_params: { url: "http://127.0.0.1:9/sse" }',
        '  - name: OpenAPIToolset',
        '    args:',
        '      spec_path: api.json',
        '      base_url: "http://127.0.0.1:9"',
        '      tool_filter: [ping]',
      ].join('\n'),
      'api.json': spec,
    });
    const agent = (await loadAgentFromConfig(root)) as LlmAgent;
    const [stdio, http, sse, openapi] = agent.tools;
    expect(stdio).toBeInstanceOf(McpToolset);
    expect(http).toBeInstanceOf(McpToolset);
    expect(sse).toBeInstanceOf(McpToolset);
    const options = (t: unknown) => (t as { options: Record<string, unknown> }).options;
    expect(options(stdio)).toMatchObject({
      connection: { type: 'stdio', command: 'node', args: ['server.js'] },
      toolFilter: ['read_file'],
      toolNamePrefix: 'fs',
    });
    expect(options(http)).toMatchObject({
      connection: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { 'x-key': 'k' } },
      connectTimeoutMs: 5000,
    });
    expect(options(sse)).toMatchObject({ connection: { type: 'sse' } });
    expect(openapi).toBeInstanceOf(OpenApiToolset);
    const tools = await (openapi as OpenApiToolset).getTools({} as never);
    expect(tools.map((t) => t.name)).toEqual(['ping']);
  });
});

describe('errors name the file, the YAML path, what was expected and what was found', () => {
  const cases: { title: string; yaml: string; yamlPath: string; expected: RegExp; found: RegExp }[] = [
    {
      title: 'malformed YAML',
      yaml: 'name: a\ninstruction: [unclosed\n',
      yamlPath: '$',
      expected: /well-formed YAML/,
      found: /syntax error/,
    },
    {
      title: 'a duplicate key',
      yaml: 'name: a\nname: b\ninstruction: x\n',
      yamlPath: '$',
      expected: /well-formed/,
      found: /DUPLICATE_KEY|unique/i,
    },
    {
      title: 'a list at the top',
      yaml: '- name: a\n',
      yamlPath: '$',
      expected: /a mapping of agent fields/,
      found: /a list/,
    },
    { title: 'an empty file', yaml: '', yamlPath: '$', expected: /a mapping/, found: /nothing/ },
    {
      title: 'a missing name',
      yaml: 'instruction: x\n',
      yamlPath: 'name',
      expected: /required key "name"/,
      found: /nothing/,
    },
    {
      title: 'a missing instruction',
      yaml: 'name: a\n',
      yamlPath: 'instruction',
      expected: /required key "instruction"/,
      found: /nothing/,
    },
    {
      title: 'an unknown key',
      yaml: 'name: a\ninstruction: x\ninstructions: y\n',
      yamlPath: 'instructions',
      expected: /one of the keys .*instruction/,
      found: /unknown key "instructions"/,
    },
    {
      title: 'a wrong type',
      yaml: 'name: 5\ninstruction: x\n',
      yamlPath: 'name',
      expected: /a string/,
      found: /the number 5/,
    },
    {
      title: 'a bad include_contents',
      yaml: 'name: a\ninstruction: x\ninclude_contents: all\n',
      yamlPath: 'include_contents',
      expected: /one of "default", "none"/,
      found: /the string "all"/,
    },
    {
      title: 'a non-boolean disallow flag',
      yaml: 'name: a\ninstruction: x\ndisallow_transfer_to_peers: maybe\n',
      yamlPath: 'disallow_transfer_to_peers',
      expected: /a boolean/,
      found: /the string "maybe"/,
    },
    {
      title: 'max_iterations as text',
      yaml: 'agent_class: LoopAgent\nname: l\nmax_iterations: three\n',
      yamlPath: 'max_iterations',
      expected: /an integer/,
      found: /the string "three"/,
    },
    {
      title: 'max_iterations below 1',
      yaml: 'agent_class: LoopAgent\nname: l\nmax_iterations: 0\n',
      yamlPath: 'max_iterations',
      expected: />= 1/,
      found: /the number 0/,
    },
    {
      title: 'max_iterations on a SequentialAgent',
      yaml: 'agent_class: SequentialAgent\nname: s\nmax_iterations: 2\n',
      yamlPath: 'max_iterations',
      expected: /one of the keys/,
      found: /unknown key "max_iterations"/,
    },
    {
      title: 'a tool without a name',
      yaml: 'name: a\ninstruction: x\ntools:\n  - args: {}\n',
      yamlPath: 'tools[0].name',
      expected: /required key "name"/,
      found: /nothing/,
    },
    {
      title: 'a callback given as a bare string',
      yaml: 'name: a\ninstruction: x\nbefore_model_callbacks:\n  - my_app.cb\n',
      yamlPath: 'before_model_callbacks[0]',
      expected: /a mapping/,
      found: /the string "my_app.cb"/,
    },
    {
      title: 'a sub-agent reference with an unknown key',
      yaml: 'name: a\ninstruction: x\nsub_agents:\n  - path: b.yaml\n',
      yamlPath: 'sub_agents[0].path',
      expected: /config_path, code/,
      found: /unknown key "path"/,
    },
    {
      title: 'generate_content_config with an unknown key',
      yaml: 'name: a\ninstruction: x\ngenerate_content_config:\n  temprature: 1\n',
      yamlPath: 'generate_content_config.temprature',
      expected: /temperature/,
      found: /unknown key "temprature"/,
    },
    {
      title: 'static_instruction as a number',
      yaml: 'name: a\ninstruction: x\nstatic_instruction: 3\n',
      yamlPath: 'static_instruction',
      expected: /a string or a mapping/,
      found: /the number 3/,
    },
    {
      title: 'model and model_code together',
      yaml: 'name: a\ninstruction: x\nmodel: m\nmodel_code: { name: n }\n',
      yamlPath: 'model_code',
      expected: /only one of `model` and `model_code`/,
      found: /both/,
    },
    {
      title: 'an agent name that is not an identifier',
      yaml: 'name: my-agent\ninstruction: x\n',
      yamlPath: 'name',
      expected: /a config LlmAgent accepts/,
      found: /my-agent/,
    },
    {
      title: 'an unknown bare tool name',
      yaml: 'name: a\ninstruction: x\ntools: [{ name: google_serch }]\n',
      yamlPath: 'tools[0].name',
      expected: /a built-in tool \(google_search, .*\) or a dotted name/,
      found: /the string "google_serch"/,
    },
    {
      title: 'args on a built-in that takes none',
      yaml: 'name: a\ninstruction: x\ntools: [{ name: exit_loop, args: { x: 1 } }]\n',
      yamlPath: 'tools[0].args',
      expected: /no args for exit_loop/,
      found: /a mapping with keys x/,
    },
    {
      title: 'AgentTool without an agent',
      yaml: 'name: a\ninstruction: x\ntools: [{ name: AgentTool, args: { skip_summarization: true } }]\n',
      yamlPath: 'tools[0].args.agent',
      expected: /required key "agent"/,
      found: /nothing/,
    },
    {
      title: 'McpToolset without connection params',
      yaml: 'name: a\ninstruction: x\ntools: [{ name: McpToolset, args: { tool_filter: [a] } }]\n',
      yamlPath: 'tools[0].args',
      expected: /exactly one of stdio_server_params/,
      found: /none/,
    },
    {
      title: 'McpToolset with two connections',
      yaml: 'name: a\ninstruction: x\ntools: [{ name: McpToolset, args: { stdio_server_params: { command: x }, sse_connection_params: { url: "http://h" } } }]\n',
      yamlPath: 'tools[0].args',
      expected: /exactly one of/,
      found: /stdio_server_params and sse_connection_params/,
    },
    {
      title: 'McpToolset with a bad URL',
      yaml: 'name: a\ninstruction: x\ntools: [{ name: McpToolset, args: { streamable_http_connection_params: { url: "not a url" } } }]\n',
      yamlPath: 'tools[0].args.streamable_http_connection_params.url',
      expected: /URL/,
      found: /"not a url"/,
    },
    {
      title: 'McpToolset stdio without a command',
      yaml: 'name: a\ninstruction: x\ntools: [{ name: McpToolset, args: { stdio_server_params: { args: [x] } } }]\n',
      yamlPath: 'tools[0].args.stdio_server_params.command',
      expected: /required key "command"/,
      found: /nothing/,
    },
    {
      title: 'OpenAPIToolset without a document',
      yaml: 'name: a\ninstruction: x\ntools: [{ name: OpenAPIToolset, args: {} }]\n',
      yamlPath: 'tools[0].args',
      expected: /exactly one of spec_str, spec_path, spec_url/,
      found: /none/,
    },
    {
      title: 'ExampleTool with an example lacking input',
      yaml: 'name: a\ninstruction: x\ntools: [{ name: ExampleTool, args: { examples: [{ output: [] }] } }]\n',
      yamlPath: 'tools[0].args.examples[0].input',
      expected: /required key "input"/,
      found: /nothing/,
    },
    {
      title: 'a sub-agent with neither config_path nor code',
      yaml: 'name: a\ninstruction: x\nsub_agents: [{}]\n',
      yamlPath: 'sub_agents[0]',
      expected: /either `config_path` or `code`/,
      found: /neither/,
    },
    {
      title: 'a sub-agent with both config_path and code',
      yaml: 'name: a\ninstruction: x\nsub_agents: [{ config_path: b.yaml, code: m.b }]\n',
      yamlPath: 'sub_agents[0]',
      expected: /either `config_path` or `code`/,
      found: /both/,
    },
    {
      title: 'an absolute config_path',
      yaml: 'name: a\ninstruction: x\nsub_agents: [{ config_path: /etc/agent.yaml }]\n',
      yamlPath: 'sub_agents[0].config_path',
      expected: /a path relative to this file/,
      found: /"\/etc\/agent.yaml"/,
    },
    {
      title: 'a config_path that leaves the app folder',
      yaml: 'name: a\ninstruction: x\nsub_agents: [{ config_path: ../other/root_agent.yaml }]\n',
      yamlPath: 'sub_agents[0].config_path',
      expected: /a path inside the app folder/,
      found: /which leaves it/,
    },
    {
      title: 'a missing config file',
      yaml: 'name: a\ninstruction: x\nsub_agents: [{ config_path: missing.yaml }]\n',
      yamlPath: 'sub_agents[0].config_path',
      expected: /the path of an agent config file/,
      found: /no file at/,
    },
    {
      title: 'a file that includes itself',
      yaml: 'name: a\ninstruction: x\nsub_agents: [{ config_path: root_agent.yaml }]\n',
      yamlPath: 'sub_agents[0].config_path',
      expected: /does not include itself/,
      found: /a cycle/,
    },
    {
      title: 'agent_class BaseAgent',
      yaml: 'agent_class: BaseAgent\nname: a\n',
      yamlPath: 'agent_class',
      expected: /LlmAgent, .* or a dotted name of a class extending BaseAgent/,
      found: /"BaseAgent"/,
    },
    {
      title: 'agent_class as a number',
      yaml: 'agent_class: 3\nname: a\n',
      yamlPath: 'agent_class',
      expected: /a string/,
      found: /the number 3/,
    },
    {
      title: 'an unknown bare agent_class',
      yaml: 'agent_class: LlmAgnt\nname: a\n',
      yamlPath: 'agent_class',
      expected: /a registered name or a dotted name/,
      found: /"LlmAgnt"/,
    },
    {
      title: 'a dotted name of a module that does not exist',
      yaml: 'name: a\ninstruction: x\ntools: [{ name: my_app.nowhere.tool }]\n',
      yamlPath: 'tools[0].name',
      expected: /a module nowhere.ts|a module my_app\/nowhere.ts/,
      found: /no such module/,
    },
    {
      title: 'a dotted name with a path-like segment',
      yaml: 'name: a\ninstruction: x\ntools: [{ name: "my_app.../x.y" }]\n',
      yamlPath: 'tools[0].name',
      expected: /a registered name or a dotted name/,
      found: /my_app\.\.\.\/x\.y/,
    },
  ];

  for (const c of cases) {
    it(c.title, async () => {
      const { root } = app({ 'root_agent.yaml': c.yaml });
      const error = await loadError(root);
      expectError(error, { file: root, yamlPath: c.yamlPath, expected: c.expected, found: c.found });
    });
  }

  it('gives the line and column of the value', async () => {
    const { root } = app({ 'root_agent.yaml': 'name: a\ninstruction: x\ninclude_contents: all\n' });
    const error = await loadError(root);
    expect([error.line, error.column]).toEqual([3, 19]);
    expect(error.message.startsWith(`${root}:3:19: at include_contents:`)).toBe(true);
    expect(error.code).toBe('AGENT_CONFIG');
  });

  it('names the referenced file when the error is in a sub-agent', async () => {
    const { root, dir } = app({
      'root_agent.yaml': 'name: a\ninstruction: x\nsub_agents: [{ config_path: team/b.yaml }]\n',
      'team/b.yaml': 'agent_class: LoopAgent\nname: b\nmax_iterations: -1\n',
    });
    const error = await loadError(root);
    expectError(error, {
      file: join(dir, 'team', 'b.yaml'),
      yamlPath: 'max_iterations',
      expected: />= 1/,
      found: /-1/,
    });
  });

  describe('code references', () => {
    const moduleFiles = {
      'tools.mjs': [
        'export const not_a_tool = 42;',
        'export function plain() { return 1; }',
        "export function broken_factory() { throw new Error('factory failed'); }",
        'export const schema_like = { type: "object" };',
      ].join('\n'),
      '../other_app/secrets.mjs': "export const key = 'outside';",
    };
    const refCases: { title: string; yaml: string; yamlPath: string; expected: RegExp; found: RegExp }[] = [
      {
        title: 'an export that is missing',
        yaml: 'tools: [{ name: my_app.tools.nothing }]',
        yamlPath: 'tools[0].name',
        expected: /an export "nothing" of .*tools.mjs/,
        found: /only the exports .*not_a_tool/,
      },
      {
        title: 'an export that is not a tool',
        yaml: 'tools: [{ name: my_app.tools.not_a_tool }]',
        yamlPath: 'tools[0].name',
        expected: /a dotted name of a tool/,
        found: /the number 42/,
      },
      {
        title: 'a plain function as a tool',
        yaml: 'tools: [{ name: my_app.tools.plain }]',
        yamlPath: 'tools[0].name',
        expected: /wrap it in a FunctionTool/,
        found: /a function \(plain\)/,
      },
      {
        title: 'a factory that throws',
        yaml: 'tools: [{ name: my_app.tools.broken_factory, args: { a: 1 } }]',
        yamlPath: 'tools[0].args',
        expected: /args my_app.tools.broken_factory accepts/,
        found: /factory failed/,
      },
      {
        title: 'a callback that is not a function',
        yaml: 'after_tool_callbacks: [{ name: my_app.tools.not_a_tool }]',
        yamlPath: 'after_tool_callbacks[0].name',
        expected: /a callback function/,
        found: /the number 42/,
      },
      {
        title: 'an output_schema that is not a zod schema',
        yaml: 'output_schema: { name: my_app.tools.schema_like }',
        yamlPath: 'output_schema.name',
        expected: /a zod schema/,
        found: /a mapping with keys type/,
      },
      {
        title: 'a sub-agent code reference to a non-agent',
        yaml: 'sub_agents: [{ code: my_app.tools.not_a_tool }]',
        yamlPath: 'sub_agents[0].code',
        expected: /an agent instance/,
        found: /the number 42/,
      },
      {
        title: 'a module outside the app folder',
        yaml: 'tools: [{ name: other_app.secrets.key }]',
        yamlPath: 'tools[0].name',
        expected: /a module inside the app folder/,
        found: /outside it/,
      },
      {
        title: 'a LongRunningFunctionTool of a non-tool',
        yaml: 'tools: [{ name: LongRunningFunctionTool, args: { func: my_app.tools.plain } }]',
        yamlPath: 'tools[0].args.func',
        expected: /a tool \(e.g. a FunctionTool\)/,
        found: /a function/,
      },
      {
        title: 'a model_code that is not a model',
        yaml: 'model_code: { name: my_app.tools.not_a_tool }',
        yamlPath: 'model_code.name',
        expected: /a model/,
        found: /the number 42/,
      },
      {
        title: 'a custom agent_class that is not an agent class',
        yaml: 'agent_class: my_app.tools.not_a_tool',
        yamlPath: 'agent_class',
        expected: /a class extending BaseAgent/,
        found: /the number 42/,
      },
    ];
    for (const c of refCases) {
      it(c.title, async () => {
        const yaml = c.yaml.startsWith('agent_class')
          ? `${c.yaml}\nname: a\n`
          : `name: a\ninstruction: x\n${c.yaml}\n`;
        const { root } = app({ 'root_agent.yaml': yaml, ...moduleFiles });
        const error = await loadError(root);
        expectError(error, { file: root, yamlPath: c.yamlPath, expected: c.expected, found: c.found });
      });
    }

    it('a symlink out of the app folder is refused like a path', async () => {
      const { root, dir, agents } = app({
        'root_agent.yaml': 'name: a\ninstruction: x\ntools: [{ name: my_app.linked.key }]\n',
        ...moduleFiles,
      });
      symlinkSync(join(agents, 'other_app', 'secrets.mjs'), join(dir, 'linked.mjs'));
      const error = await loadError(root);
      expectError(error, {
        file: root,
        yamlPath: 'tools[0].name',
        expected: /inside the app folder/,
        found: /outside it/,
      });
    });

    it('an OpenAPI spec_path that leaves the app folder', async () => {
      const { root } = app({
        'root_agent.yaml':
          'name: a\ninstruction: x\ntools: [{ name: OpenAPIToolset, args: { spec_path: ../../api.json } }]\n',
      });
      const error = await loadError(root);
      expectError(error, {
        file: root,
        yamlPath: 'tools[0].args.spec_path',
        expected: /inside the app folder/,
        found: /api.json/,
      });
    });
  });

  it('parseAgentConfig validates text without files', () => {
    expect(parseAgentConfig('name: a\ninstruction: hi\n').name).toBe('a');
    expect(() => parseAgentConfig('name: [', 'inline.yaml')).toThrow(
      /^inline.yaml:1:\d+: at \$: expected well-formed YAML/,
    );
  });

  it('a root file outside appRoot is refused', async () => {
    const { root, agents } = app({ 'root_agent.yaml': 'name: a\ninstruction: x\n' });
    const error = await loadError(root, { appRoot: join(agents, 'elsewhere') });
    expect(error.expected).toMatch(/inside the app folder/);
  });
});

describe('agents built from YAML behave like code agents', () => {
  it('sub-agents get their parent and transfer works', async () => {
    const { root } = app({
      'root_agent.yaml':
        'name: boss\nmodel_code: { name: boss_model }\ninstruction: Route.\nsub_agents: [{ config_path: worker.yaml }]\n',
      'worker.yaml': 'name: worker\nmodel_code: { name: worker_model }\ninstruction: Work.\n',
    });
    const agent = await loadAgentFromConfig(root, {
      references: {
        boss_model: new ScriptedModel({
          script: [
            {
              content: {
                role: 'model',
                parts: [
                  { functionCall: { id: 't', name: 'transfer_to_agent', args: { agent_name: 'worker' } } },
                ],
              },
            },
          ],
        }),
        worker_model: new ScriptedModel({ respond: () => 'done by worker' }),
      },
    });
    const worker = agent.findAgent('worker') as BaseAgent;
    expect(worker.parentAgent).toBe(agent);
    const runner = new Runner({
      appName: 'a',
      agent,
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    const events = await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('go') }));
    expect(events.at(-1)?.author).toBe('worker');
    expect(events.at(-1)?.content?.parts[0]?.text).toBe('done by worker');
  });
});
