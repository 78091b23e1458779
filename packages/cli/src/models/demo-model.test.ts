import { FunctionTool, LlmAgent, ModelRegistry, runAgent } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEMO_NOTICE, DemoModel, describeModelChoice, pickModel, registerModelsFromEnv } from '../index.js';

const fast = () => new DemoModel({ tokenDelayMs: 1, slowReplyMs: 300 });

const lookupFlight = new FunctionTool({
  name: 'lookup_flight',
  description: 'Finds the status of a flight by its number.',
  parameters: z.object({ flight_id: z.string(), day: z.number().optional() }),
  execute: async ({ flight_id }) => ({ flight_id, status: 'on time' }),
});
const convertCurrency = new FunctionTool({
  name: 'convert_currency',
  description: 'Converts an amount of money between currencies.',
  parameters: z.object({ amount: z.number(), to: z.enum(['EUR', 'USD', 'JPY']) }),
  execute: async ({ amount, to }) => ({ amount, to, converted: amount * 2 }),
});

describe('DemoModel', () => {
  it('calls the tool that matches the message, with guessed arguments, then summarizes its result', async () => {
    const agent = new LlmAgent({ name: 'travel', model: fast(), tools: [lookupFlight, convertCurrency] });
    const flight = await runAgent(agent, 'What is the status of flight AF-123?');
    const call = flight.events
      .flatMap((e) => e.content?.parts ?? [])
      .find((p) => p.functionCall)?.functionCall;
    expect(call).toMatchObject({ name: 'lookup_flight', args: { flight_id: 'AF-123' } });
    expect(flight.text).toContain(DEMO_NOTICE);
    expect(flight.text).toContain('`lookup_flight`: flight_id: AF-123, status: on time');

    const money = await runAgent(agent, 'Convert 40 dollars of money to JPY');
    const convert = money.events
      .flatMap((e) => e.content?.parts ?? [])
      .find((p) => p.functionCall)?.functionCall;
    expect(convert).toMatchObject({ name: 'convert_currency', args: { amount: 40, to: 'JPY' } });
  });

  it('answers plainly as a demo when no tool fits', async () => {
    const agent = new LlmAgent({
      name: 'chat',
      model: fast(),
      instruction: 'Be kind.',
      tools: [lookupFlight],
    });
    const result = await runAgent(agent, 'Good morning');
    expect(result.events.some((e) => e.content?.parts.some((p) => p.functionCall))).toBe(false);
    expect(result.text).toContain('offline demo model');
    expect(result.text).toContain('You said: "Good morning"');
    expect(result.text).toContain('My instructions: "Be kind."');
  });

  it('transfers to the sub-agent whose description matches, once', async () => {
    const billing = new LlmAgent({
      name: 'billing',
      description: 'Handles invoices and payments.',
      model: fast(),
    });
    const root = new LlmAgent({ name: 'front_desk', model: fast(), subAgents: [billing] });
    const result = await runAgent(root, 'I have a question about my invoice');
    const authors = result.events.filter((e) => !e.partial).map((e) => e.author);
    expect(authors).toContain('billing');
    const transfers = result.events
      .flatMap((e) => e.content?.parts ?? [])
      .filter((p) => p.functionCall?.name === 'transfer_to_agent');
    expect(transfers).toHaveLength(1);
    expect(result.text).toContain('(billing)');
  });

  it("reads the targets of ADK's transfer instruction (Agent name / Agent description pairs)", async () => {
    const request = {
      model: 'gemini-2.5-flash',
      systemInstruction: [
        'You are an agent. Your internal name is "front_desk".',
        'You have a list of other agents to transfer to:',
        'Agent name: billing\nAgent description: Handles invoices and payments.\n\nAgent name: support\nAgent description: Fixes devices.',
      ].join('\n\n'),
      contents: [{ role: 'user' as const, parts: [{ text: 'My invoice payment failed' }] }],
      tools: [
        {
          name: 'transfer_to_agent',
          description: 'Transfer the question to another agent.',
          parameters: { type: 'object', properties: { agent_name: { type: 'string' } } },
        },
      ],
      config: {},
    };
    const responses = [];
    for await (const r of fast().generate(request)) responses.push(r);
    expect(responses.at(-1)?.content?.parts[0]?.functionCall).toMatchObject({
      name: 'transfer_to_agent',
      args: { agent_name: 'billing' },
    });
  });

  it('streams token by token, and a "slow" reply can be stopped', async () => {
    const agent = new LlmAgent({ name: 'talker', model: fast() });
    const streamed = await runAgent(agent, 'hello', { runConfig: { streaming: true } });
    expect(streamed.events.filter((e) => e.partial).length).toBeGreaterThan(5);

    const slow = new LlmAgent({
      name: 'slowpoke',
      model: new DemoModel({ tokenDelayMs: 1, slowReplyMs: 5_000 }),
    });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 200);
    const outcome = await runAgent(slow, 'Tell me a long story', {
      runConfig: { streaming: true },
      signal: controller.signal,
    }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    // Stopped long before the five seconds the reply would take, without a final answer.
    expect(Date.now() - started).toBeLessThan(2_000);
    if ('result' in outcome) expect(outcome.result.text).toBe('');
  });
});

describe('pickModel', () => {
  it('is the demo model without keys and a real provider with one', () => {
    expect(pickModel({ env: {} })).toBeInstanceOf(DemoModel);
    expect(describeModelChoice({}).envVar).toBeUndefined();
    expect(pickModel({ env: { ANTHROPIC_API_KEY: 'k' } }).model).toBe('claude-sonnet-4-5');
    expect(pickModel({ env: { OPENAI_API_KEY: 'k', ADK_MODEL: 'gpt-4.1' } }).model).toBe('gpt-4.1');
    expect(describeModelChoice({ GOOGLE_API_KEY: 'k' })).toMatchObject({
      model: 'gemini-2.5-flash',
      envVar: 'GOOGLE_API_KEY',
    });
  });

  it('registerModelsFromEnv serves model names without a key with the demo model', () => {
    const none = registerModelsFromEnv(new ModelRegistry(), {});
    expect(none.resolve('gemini-2.5-flash')).toBeInstanceOf(DemoModel);
    const gemini = registerModelsFromEnv(new ModelRegistry(), { GEMINI_API_KEY: 'k' });
    expect(gemini.resolve('gemini-2.5-flash')).not.toBeInstanceOf(DemoModel);
    expect(gemini.resolve('claude-sonnet-4-5')).toBeInstanceOf(DemoModel);
  });

  it("registerModelsFromEnv leaves every name an app's own provider serves to it", () => {
    const acme = new ScriptedModel({ model: 'acme-1' });
    const mine = new ScriptedModel({ model: 'my-gemini' });
    const appProviders = (registry: ModelRegistry) =>
      registry
        .register({ name: 'acme', matches: (m) => m.startsWith('acme-'), create: () => acme })
        .register({ name: 'gemini', matches: (m) => m.startsWith('gemini-'), create: () => mine });
    const env = { GEMINI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' };
    // The app loads before the CLI registers (adk run, eval, mcp) or after (adk web, api_server, worker).
    for (const registry of [
      registerModelsFromEnv(appProviders(new ModelRegistry()), env),
      appProviders(registerModelsFromEnv(new ModelRegistry(), env)),
    ]) {
      expect(registry.resolve('acme-1')).toBe(acme);
      expect(registry.resolve('gemini-2.5-flash')).toBe(mine);
      expect(registry.resolve('claude-sonnet-4-5')).not.toBeInstanceOf(DemoModel);
      expect(registry.resolve('claude-sonnet-4-5')).not.toBe(mine);
      expect(registry.resolve('someone-elses-model')).toBeInstanceOf(DemoModel);
    }
  });
});
