import { describe, expect, it } from 'vitest';
import {
  createPreloadMemoryTool,
  InMemoryMemoryService,
  InMemorySessionService,
  isAdkError,
  LlmAgent,
  preloadMemoryTool,
  runAgent,
  type SearchMemoryResult,
} from '../index.js';
import { ScriptedModel } from '../testing/index.js';

async function rememberedDog() {
  const memoryService = new InMemoryMemoryService();
  const sessionService = new InMemorySessionService();
  const first = await runAgent(
    new LlmAgent({ name: 'a', model: new ScriptedModel(['Noted: your dog is Rex']) }),
    'My dog is called Rex',
    { sessionService, sessionId: 'old', appName: 'app' },
  );
  await memoryService.addSessionToMemory(first.session);
  return { memoryService, sessionService };
}

describe('memory in callbacks and preload_memory', () => {
  it('preload_memory adds memories relevant to the user’s message to the instruction, declares no function', async () => {
    const { memoryService, sessionService } = await rememberedDog();
    const model = new ScriptedModel(['Rex']);
    const agent = new LlmAgent({ name: 'a', model, instruction: 'Be brief.', tools: [preloadMemoryTool] });
    await runAgent(agent, 'What is my dog called?', {
      sessionService,
      memoryService,
      sessionId: 'new',
      appName: 'app',
    });
    const request = model.requests[0]!;
    expect(request.tools ?? []).toEqual([]);
    expect(request.systemInstruction).toContain('Be brief.');
    expect(request.systemInstruction).toContain('<PAST_CONVERSATIONS>');
    expect(request.systemInstruction).toMatch(/user: My dog is called Rex/);
    expect(request.systemInstruction).toMatch(/a: Noted: your dog is Rex/);
  });

  it('preload_memory adds nothing when nothing matches, and honours its limit', async () => {
    const { memoryService, sessionService } = await rememberedDog();
    const none = new ScriptedModel(['?']);
    await runAgent(
      new LlmAgent({ name: 'a', model: none, instruction: 'Hi.', tools: [preloadMemoryTool] }),
      'submarine',
      {
        sessionService,
        memoryService,
        sessionId: 'n1',
        appName: 'app',
      },
    );
    expect(none.requests[0]!.systemInstruction).not.toContain('PAST_CONVERSATIONS');
    const one = new ScriptedModel(['?']);
    const tool = createPreloadMemoryTool({ limit: 1 });
    await runAgent(new LlmAgent({ name: 'a', model: one, tools: [tool] }), 'dog Rex', {
      sessionService,
      memoryService,
      sessionId: 'n2',
      appName: 'app',
    });
    const block = one.requests[0]!.systemInstruction ?? '';
    expect(block.split('\n').filter((line) => line.includes('Rex'))).toHaveLength(1);
  });

  it('preload_memory without a memoryService fails the run with a CONFIG error', async () => {
    const result = await runAgent(
      new LlmAgent({ name: 'a', model: new ScriptedModel(['x']), tools: [preloadMemoryTool] }),
      'hello',
      { rejectOnError: false },
    );
    expect(result.error?.code).toBe('CONFIG');
  });

  it('callbacks can search memory through their context', async () => {
    const { memoryService, sessionService } = await rememberedDog();
    let found: SearchMemoryResult | undefined;
    const agent = new LlmAgent({
      name: 'a',
      model: new ScriptedModel(['ok']),
      beforeModelCallback: async ({ context }) => {
        found = await context.searchMemory('dog', 1);
        return undefined;
      },
    });
    await runAgent(agent, 'hi', { sessionService, memoryService, sessionId: 'cb', appName: 'app' });
    expect(found?.memories).toHaveLength(1);
    let error: unknown;
    await runAgent(
      new LlmAgent({
        name: 'b',
        model: new ScriptedModel(['ok']),
        beforeAgentCallback: async ({ context }) => {
          error = await context.searchMemory('dog').catch((e) => e);
          return undefined;
        },
      }),
      'hi',
    );
    expect(isAdkError(error, 'CONFIG')).toBe(true);
  });
});
