import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LlmAgent } from '../agents/llm-agent.js';
import {
  isAdkError,
  MissingApiKeyError,
  ModelNotFoundError,
  ProviderNotRegisteredError,
} from '../errors/errors.js';
import { userContent } from '../events/content.js';
import type { Llm, LlmResponse } from '../models/llm.js';
import { ModelRegistry } from '../models/registry.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { AgentTool } from '../tools/agent-tool.js';
import { FunctionTool } from '../tools/function-tool.js';
import { RunFailedError, runAgent, runAgentText } from './facade.js';
import { Runner } from './runner.js';

const keyless: Llm = {
  model: 'keyless-1',
  validateConfiguration() {
    throw new MissingApiKeyError('Demo API key is missing. Set `DEMO_API_KEY`.', ['DEMO_API_KEY']);
  },
  async *generate(): AsyncGenerator<LlmResponse> {
    yield { content: { role: 'model', parts: [{ text: 'never' }] } };
  },
};

describe('configuration errors throw before the run; runtime errors stay events', () => {
  it('a model name whose provider is not registered names the package, the function and the key', async () => {
    const sessionService = new InMemorySessionService();
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({ name: 'assistant', model: 'gemini-2.5-flash' }),
      sessionService,
      models: new ModelRegistry(),
      autoCreateSession: true,
    });
    const events = runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('hi') });
    const error = await events.next().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderNotRegisteredError);
    expect(error).toBeInstanceOf(ModelNotFoundError);
    expect(isAdkError(error, 'PROVIDER_NOT_REGISTERED')).toBe(true);
    expect((error as Error).message).toContain('@adk/models-gemini');
    expect((error as Error).message).toContain('registerGemini()');
    expect((error as Error).message).toContain('GEMINI_API_KEY');
    // Nothing was recorded: no session, no run.
    expect(await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' })).toBeUndefined();
    expect((await runner.listRuns()).runs).toEqual([]);
  });

  it('an unknown model name is MODEL_NOT_FOUND and lists what is registered', async () => {
    const models = new ModelRegistry().register({
      name: 'scripted',
      matches: (m) => m.startsWith('scripted-'),
      create: (m) => new ScriptedModel({ model: m, respond: () => 'hi' }),
    });
    const error = await runAgent(new LlmAgent({ name: 'a', model: 'my-model' }), 'hi', { models }).catch(
      (e: unknown) => e,
    );
    expect(isAdkError(error, 'MODEL_NOT_FOUND')).toBe(true);
    expect((error as Error).message).toMatch(/No model provider serves "my-model" \(registered: scripted\)/);
  });

  it('a missing API key throws MISSING_API_KEY from run, startRun and runAgentText', async () => {
    const agent = new LlmAgent({ name: 'a', model: keyless });
    const runner = new Runner({ appName: 'app', agent, sessionService: new InMemorySessionService() });
    const fromRun = await runner
      .run({ userId: 'u', sessionId: 's' })
      .next()
      .catch((e: unknown) => e);
    expect(isAdkError(fromRun, 'MISSING_API_KEY')).toBe(true);
    expect((fromRun as MissingApiKeyError).envVars).toEqual(['DEMO_API_KEY']);
    await expect(runner.startRun({ userId: 'u', sessionId: 's' })).rejects.toMatchObject({
      code: 'MISSING_API_KEY',
    });
    await expect(runAgentText(agent, 'hi')).rejects.toThrow(/DEMO_API_KEY/);
  });

  it('models of sub-agents and of agents wrapped as tools are checked too', async () => {
    const inner = new LlmAgent({ name: 'inner', model: 'claude-sonnet-4-5' });
    const root = new LlmAgent({
      name: 'root',
      model: new ScriptedModel(['x']),
      subAgents: [new LlmAgent({ name: 'helper', instruction: 'inherits the model' })],
      tools: [new AgentTool({ agent: inner })],
    });
    const error = await runAgent(root, 'hi', { models: new ModelRegistry() }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'PROVIDER_NOT_REGISTERED', packageName: '@adk/models-claude' });
    expect((error as Error).message).toContain('registerClaude()');
  });

  it('a failing model is an error event; runAgent and runAgentText reject with its typed error', async () => {
    const failing = () => new ScriptedModel([new Error('upstream down')]);
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({ name: 'a', model: failing() }),
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    const events = [];
    for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('hi') }))
      events.push(e);
    expect(events.at(-1)?.errorMessage).toBe('Model call failed: upstream down');

    const error = await runAgent(new LlmAgent({ name: 'a', model: failing() }), 'hi').catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RunFailedError);
    expect(isAdkError(error)).toBe(true);
    expect((error as RunFailedError).message).toBe('Model call failed: upstream down');
    expect((error as RunFailedError).result.session.events.map((e) => e.author)).toEqual(['user', 'a']);
    await expect(runAgentText(new LlmAgent({ name: 'a', model: failing() }), 'hi')).rejects.toBeInstanceOf(
      RunFailedError,
    );
  });

  it("a model's own error code (e.g. SAFETY) rejects as MODEL with the code kept", async () => {
    const model = new ScriptedModel([{ errorCode: 'SAFETY', errorMessage: 'blocked' }]);
    const error = (await runAgent(new LlmAgent({ name: 'a', model }), 'hi').catch(
      (e: unknown) => e,
    )) as RunFailedError;
    expect(error.code).toBe('MODEL');
    expect(error.modelErrorCode).toBe('SAFETY');
  });

  it('a failing tool stays an error response to the model, and the run answers', async () => {
    const tool = new FunctionTool({
      name: 'boom',
      description: 'fails',
      parameters: z.object({}),
      execute: () => {
        throw new Error('tool broke');
      },
    });
    const model = new ScriptedModel([
      { content: { role: 'model', parts: [{ functionCall: { id: '1', name: 'boom', args: {} } }] } },
      'recovered',
    ]);
    expect(await runAgentText(new LlmAgent({ name: 'a', model, tools: [tool] }), 'go')).toBe('recovered');
  });
});
