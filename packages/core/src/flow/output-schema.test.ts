import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Event,
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  parseEvent,
  Runner,
  runAgent,
} from '../index.js';
import { functionCallResponse, ScriptedModel } from '../testing/index.js';

// adk-python 2.x's texts, pinned character for character.
const DESCRIPTION =
  'Set your final response using the required output schema.\n\nUse this tool to provide your final structured answer instead\nof outputting text directly.';
const FIELDS_INSTRUCTION =
  'After completing any needed tool calls, you must provide your final response by calling set_model_response with the required fields.';
const VALUE_INSTRUCTION =
  'IMPORTANT: After using any needed tools, you MUST call set_model_response to provide your final answer. This is required to complete the task.';
const ADVICE =
  'Recall the set_model_response function correctly, fix the errors, and call it again with all required fields using the correct types.';

const weather = new FunctionTool({
  name: 'get_weather',
  description: 'Weather of a city.',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, sky: 'clear' }),
});

const report = z.object({ city: z.string(), sky: z.string(), note: z.string().nullable().optional() });

async function run(agent: LlmAgent, message = 'Weather in Rome?') {
  const runner = new Runner({
    appName: 'app',
    agent,
    sessionService: new InMemorySessionService(),
    autoCreateSession: true,
  });
  const events: Event[] = [];
  for await (const event of runner.run({
    userId: 'u',
    sessionId: 's',
    newMessage: { role: 'user', parts: [{ text: message }] },
  }))
    events.push(event);
  const session = await runner.sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
  return { events, session };
}

const savedRounds = process.env.ADK_MAX_TOOL_ROUNDS;
afterEach(() => {
  if (savedRounds === undefined) delete process.env.ADK_MAX_TOOL_ROUNDS;
  else process.env.ADK_MAX_TOOL_ROUNDS = savedRounds;
});

describe('output schema with tools', () => {
  it('a model declaring responseSchemaWithTools gets the schema in the config and the tools, nothing more', async () => {
    const model = new ScriptedModel({
      script: [functionCallResponse('get_weather', { city: 'Rome' }), '{"city":"Rome","sky":"clear"}'],
      capabilities: { responseSchemaWithTools: true },
    });
    const agent = new LlmAgent({
      name: 'reporter',
      model,
      tools: [weather],
      outputSchema: report,
      outputKey: 'r',
    });
    const { session } = await run(agent);
    const request = model.requests[0]!;
    expect(request.tools?.map((t) => t.name)).toEqual(['get_weather']);
    expect(request.config.responseMimeType).toBe('application/json');
    expect(request.config.responseSchema).toMatchObject({ type: 'object', required: ['city', 'sky'] });
    expect(request.systemInstruction).toBe('You are an agent. Your internal name is "reporter".');
    expect(session?.state.r).toEqual({ city: 'Rome', sky: 'clear' });
  });

  it('any other model gets set_model_response; its validated arguments are the final answer', async () => {
    const model = new ScriptedModel([
      functionCallResponse('get_weather', { city: 'Rome' }),
      functionCallResponse('set_model_response', { city: 'Rome', sky: 'clear', note: null }),
    ]);
    const agent = new LlmAgent({
      name: 'reporter',
      model,
      tools: [weather],
      outputSchema: report,
      outputKey: 'r',
    });
    const { events, session } = await run(agent);

    expect(model.requests).toHaveLength(2);
    for (const request of model.requests) {
      expect(request.config.responseSchema).toBeUndefined();
      expect(request.config.responseMimeType).toBeUndefined();
      expect(request.config.toolChoice).toBeUndefined();
      expect(request.systemInstruction).toBe(
        `You are an agent. Your internal name is "reporter".\n\n${FIELDS_INSTRUCTION}`,
      );
      expect(request.tools?.map((t) => t.name)).toEqual(['set_model_response', 'get_weather']);
      expect(request.tools?.[0]).toEqual({
        name: 'set_model_response',
        description: DESCRIPTION,
        parameters: expect.objectContaining({
          type: 'object',
          properties: expect.objectContaining({ city: { type: 'string' }, sky: { type: 'string' } }),
          required: ['city', 'sky'],
        }),
      });
    }

    // The call, its response (with the value in actions, nulls left out), then the answer as JSON text.
    const last = events.slice(-3);
    expect(last[0]?.content?.parts[0]?.functionCall?.name).toBe('set_model_response');
    expect(last[1]?.content?.parts[0]?.functionResponse).toMatchObject({
      name: 'set_model_response',
      response: { city: 'Rome', sky: 'clear' },
    });
    expect(last[1]?.actions.setModelResponse).toEqual({ city: 'Rome', sky: 'clear' });
    expect(last[2]).toMatchObject({
      author: 'reporter',
      content: { role: 'model', parts: [{ text: '{"city": "Rome", "sky": "clear"}' }] },
    });
    expect(last[2]?.actions.stateDelta).toEqual({ r: { city: 'Rome', sky: 'clear' } });
    expect(session?.state.r).toEqual({ city: 'Rome', sky: 'clear' });
    // Stored and read back: the session keeps the value under ADK's name.
    const stored = session?.events.find((e) => e.actions.setModelResponse !== undefined);
    expect(parseEvent(JSON.parse(JSON.stringify(stored))).actions.setModelResponse).toEqual({
      city: 'Rome',
      sky: 'clear',
    });
  });

  it('arguments that do not validate are answered with the error and the model tries again', async () => {
    const model = new ScriptedModel([
      functionCallResponse('set_model_response', { city: 7 }),
      functionCallResponse('set_model_response', { city: 'Zürich', sky: 'grey' }),
    ]);
    const agent = new LlmAgent({ name: 'reporter', model, tools: [weather], outputSchema: report });
    const { events } = await run(agent);
    expect(model.requests).toHaveLength(2);
    const failed = model.requests[1]!.contents.at(-1)?.parts[0]?.functionResponse?.response as {
      error: string;
    };
    expect(failed.error.startsWith('Validation Error found:\n')).toBe(true);
    expect(failed.error).toContain('city');
    expect(failed.error.endsWith(`\n${ADVICE}`)).toBe(true);
    expect(events.filter((e) => e.actions.setModelResponse !== undefined)).toHaveLength(1);
    // Non-ASCII kept as it is (json.dumps with ensure_ascii=False).
    expect(events.at(-1)?.content?.parts[0]?.text).toBe('{"city": "Zürich", "sky": "grey"}');
  });

  it('a schema that is not an object is one parameter: items for objects in a list, response otherwise', async () => {
    const tags = new ScriptedModel([functionCallResponse('set_model_response', { response: ['a', 'b'] })]);
    const listAgent = new LlmAgent({
      name: 'tagger',
      model: tags,
      tools: [weather],
      outputSchema: z.array(z.string()),
    });
    const result = await runAgent(listAgent, 'tags?');
    expect(tags.requests[0]?.tools?.[0]?.parameters).toEqual({
      type: 'object',
      properties: { response: { type: 'array', items: { type: 'string' } } },
      required: ['response'],
    });
    expect(tags.requests[0]?.systemInstruction).toContain(`\n\n${VALUE_INSTRUCTION}`);
    expect(result.text).toBe('["a", "b"]');

    const rows = new ScriptedModel([functionCallResponse('set_model_response', { items: [{ n: 1 }] })]);
    const rowsAgent = new LlmAgent({
      name: 'rows',
      model: rows,
      tools: [weather],
      outputSchema: z.array(z.object({ n: z.number() })),
    });
    expect((await runAgent(rowsAgent, 'rows?')).text).toBe('[{"n": 1}]');
    expect(Object.keys(rows.requests[0]?.tools?.[0]?.parameters?.properties as object)).toEqual(['items']);
  });

  it('is declared before transfer_to_agent, and its instruction comes before the transfer section', async () => {
    const model = new ScriptedModel([
      functionCallResponse('set_model_response', { city: 'Rome', sky: 'clear' }),
    ]);
    const helper = new LlmAgent({ name: 'helper', description: 'Helps.', model: new ScriptedModel(['hi']) });
    const agent = new LlmAgent({
      name: 'reporter',
      model,
      tools: [weather],
      subAgents: [helper],
      outputSchema: report,
    });
    await runAgent(agent, 'Rome?');
    const request = model.requests[0]!;
    expect(request.tools?.map((t) => t.name)).toEqual([
      'set_model_response',
      'transfer_to_agent',
      'get_weather',
    ]);
    const system = request.systemInstruction ?? '';
    expect(system.indexOf(FIELDS_INSTRUCTION)).toBeGreaterThan(system.indexOf('Your internal name'));
    expect(system.indexOf(FIELDS_INSTRUCTION)).toBeLessThan(
      system.indexOf('You have a list of other agents'),
    );
  });

  it('forces set_model_response on the last round before ADK_MAX_TOOL_ROUNDS and ends the turn at it', async () => {
    process.env.ADK_MAX_TOOL_ROUNDS = '2';
    const model = new ScriptedModel({ respond: () => functionCallResponse('get_weather', { city: 'Rome' }) });
    const agent = new LlmAgent({ name: 'reporter', model, tools: [weather], outputSchema: report });
    const { events } = await run(agent);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]?.config.toolChoice).toBeUndefined();
    expect(model.requests[1]?.config.toolChoice).toEqual({ name: 'set_model_response' });
    expect(events.at(-1)).toMatchObject({
      author: 'reporter',
      errorCode: 'MAX_TOOL_ROUNDS_EXCEEDED',
      errorMessage:
        'Tool execution reached 2 rounds without producing structured output via set_model_response. Breaking loop to prevent runaway API costs.',
    });
  });
});
