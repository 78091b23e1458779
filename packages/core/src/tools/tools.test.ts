import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type BaseTool,
  FunctionTool,
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemorySessionService,
  LlmAgent,
  loadArtifactsTool,
  loadMemoryTool,
  runAgent,
  Toolset,
} from '../index.js';
import { functionCallResponse, ScriptedModel } from '../testing/index.js';

const make = (name: string) =>
  new FunctionTool({
    name,
    description: name,
    parameters: z.object({ q: z.string().optional() }),
    execute: () => ({ from: name }),
  });

describe('tools', () => {
  it('FunctionTool declares its zod schema as JSON Schema', () => {
    const tool = new FunctionTool({
      name: 'book',
      description: 'Books a room',
      parameters: z.object({
        room: z.string().describe('Room id'),
        nights: z.number().int().min(1).default(1),
      }),
      execute: () => ({}),
    });
    expect(tool.declaration()).toEqual({
      name: 'book',
      description: 'Books a room',
      parameters: {
        type: 'object',
        properties: {
          room: { type: 'string', description: 'Room id' },
          nights: { type: 'integer', minimum: 1, default: 1 },
        },
        required: ['room'],
      },
    });
  });

  it('a Toolset filters and prefixes its tools, per invocation', async () => {
    const set = new Toolset({
      tools: [make('search'), make('delete'), make('list')],
      filter: ['search', 'list'],
      namePrefix: 'fs',
    });
    const model = new ScriptedModel([functionCallResponse('fs_search', { q: 'x' }), 'ok']);
    await runAgent(new LlmAgent({ name: 'a', model, tools: [set] }), 'hi');
    expect(model.requests[0]!.tools?.map((t) => t.name)).toEqual(['fs_search', 'fs_list']);
    expect(model.requests[1]!.contents.at(-1)?.parts[0]?.functionResponse).toMatchObject({
      name: 'fs_search',
      response: { from: 'search' },
    });

    const dynamic = new Toolset({
      tools: (ctx) => (ctx.readState('admin') ? [make('admin_tool')] : [make('user_tool')]),
      filter: (tool: BaseTool) => tool.name !== 'hidden',
    });
    const m2 = new ScriptedModel(['a', 'b']);
    await runAgent(new LlmAgent({ name: 'a', model: m2, tools: [dynamic] }), 'hi');
    await runAgent(new LlmAgent({ name: 'b', model: m2, tools: [dynamic] }), 'hi', {
      stateDelta: { admin: true },
    });
    expect(m2.requests.map((r) => r.tools?.[0]?.name)).toEqual(['user_tool', 'admin_tool']);
  });

  it('load_memory searches the user’s memory', async () => {
    const memoryService = new InMemoryMemoryService();
    const sessionService = new InMemorySessionService();
    const first = await runAgent(
      new LlmAgent({ name: 'a', model: new ScriptedModel(['Noted: your dog is Rex']) }),
      'My dog is called Rex',
      {
        sessionService,
        sessionId: 'old',
        appName: 'app',
      },
    );
    await memoryService.addSessionToMemory(first.session);
    const model = new ScriptedModel([functionCallResponse('load_memory', { query: 'dog' }), 'Rex']);
    await runAgent(new LlmAgent({ name: 'a', model, tools: [loadMemoryTool] }), 'What is my dog called?', {
      sessionService,
      memoryService,
      sessionId: 'new',
      appName: 'app',
    });
    const response = model.requests[1]!.contents.at(-1)?.parts[0]?.functionResponse?.response as {
      memories: { text: string }[];
    };
    expect(response.memories.map((m) => m.text)).toContain('My dog is called Rex');
  });

  it('load_artifacts lists artifacts in the instruction and adds loaded ones to the request', async () => {
    const artifactService = new InMemoryArtifactService();
    await artifactService.saveArtifact({
      appName: 'app',
      userId: 'user',
      sessionId: 'session',
      filename: 'spec.md',
      artifact: { text: '# Spec' },
    });
    const model = new ScriptedModel([
      functionCallResponse('load_artifacts', { artifact_names: ['spec.md', 'nope'] }),
      'read it',
    ]);
    await runAgent(new LlmAgent({ name: 'a', model, tools: [loadArtifactsTool] }), 'read the spec', {
      artifactService,
      appName: 'app',
    });
    expect(model.requests[0]!.systemInstruction).toContain('You have a list of artifacts:\n  ["spec.md"]\n');
    const second = model.requests[1]!;
    expect(second.contents.at(-2)?.parts[0]?.functionResponse?.response).toEqual({
      artifact_names: ['spec.md', 'nope'],
      status:
        'artifact contents temporarily inserted and removed. to access these artifacts, call load_artifacts tool again.',
    });
    // Only the artifact that exists is added, to this request only.
    expect(second.contents.at(-1)).toEqual({
      role: 'user',
      parts: [{ text: 'Artifact spec.md is:' }, { text: '# Spec' }],
    });
  });

  it('two tools with one name are a configuration error event', async () => {
    const result = await runAgent(
      new LlmAgent({ name: 'a', model: new ScriptedModel([]), tools: [make('x'), make('x')] }),
      'hi',
      { rejectOnError: false },
    );
    expect(result.error?.code).toBe('CONFIG');
  });
});
