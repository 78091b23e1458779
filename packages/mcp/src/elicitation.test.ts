// MCP elicitation against @modelcontextprotocol/server-everything over stdio: a server's request
// for input pauses the run through the one pause mechanism (a tool confirmation whose payload is
// the question and its JSON Schema), survives a restart of ours, and continues once answered.
import {
  type Content,
  type Event,
  InMemorySessionService,
  LlmAgent,
  REQUEST_CONFIRMATION,
  Runner,
  userContent,
} from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { everythingBin, responsesOf } from './__fixtures__/servers.js';
import { MCP_ELICITATION, type McpElicitationRequest, McpToolset, type StoredElicitation } from './index.js';

const connection = { type: 'stdio' as const, command: process.execPath, args: [everythingBin, 'stdio'] };

function confirmationCalls(events: Event[]) {
  return events
    .flatMap((e) => e.content?.parts ?? [])
    .filter((p) => p.functionCall?.name === REQUEST_CONFIRMATION)
    .map((p) => p.functionCall as { id: string; args: Record<string, unknown> });
}

async function collect(runner: Runner, message: Content): Promise<Event[]> {
  const events: Event[] = [];
  for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: message })) events.push(e);
  return events;
}

function answer(id: string, response: Record<string, unknown>): Content {
  return { role: 'user', parts: [{ functionResponse: { id, name: REQUEST_CONFIRMATION, response } }] };
}

describe('MCP elicitation (server-everything)', () => {
  it('pauses on a form elicitation with its schema, survives a restart, and continues with the answer', async () => {
    const sessionService = new InMemorySessionService();
    const makeRunner = (model: ScriptedModel, toolset: McpToolset) =>
      new Runner({
        appName: 'elicit',
        agent: new LlmAgent({ name: 'assistant', model, tools: [toolset] }),
        sessionService,
        autoCreateSession: true,
      });

    const firstToolset = new McpToolset({ name: 'everything', connection });
    const first = makeRunner(
      new ScriptedModel({ script: [functionCallResponse('trigger-elicitation-request', {}, 'c1')] }),
      firstToolset,
    );
    const paused = await collect(first, userContent('ask me'));
    const [question] = confirmationCalls(paused);
    expect(question).toBeDefined();
    const confirmation = question?.args.toolConfirmation as {
      hint: string;
      payload: Record<string, unknown>;
    };
    const stored = confirmation.payload[MCP_ELICITATION] as StoredElicitation;
    expect(confirmation.hint).toBe('Please provide inputs for the following fields:');
    expect(stored.question).toMatchObject({
      server: 'everything',
      tool: 'trigger-elicitation-request',
      mode: 'form',
      requestedSchema: {
        type: 'object',
        properties: { name: { type: 'string' }, check: { type: 'boolean' }, integer: { type: 'integer' } },
      },
    } satisfies Partial<McpElicitationRequest>);
    // Our server restarts between question and answer: the toolset (and its server process) is gone.
    await firstToolset.close();

    const secondToolset = new McpToolset({ name: 'everything', connection });
    try {
      const model = new ScriptedModel({ script: ['Thanks, Ada.', 'Understood.'] });
      const second = makeRunner(model, secondToolset);
      // An answer that does not fit the schema asks again, with the reason.
      const wrong = await collect(
        second,
        answer(question?.id as string, {
          confirmed: true,
          payload: { content: { name: 'Ada', integer: 'many' } },
        }),
      );
      const [again] = confirmationCalls(wrong);
      expect((again?.args.toolConfirmation as { hint?: string } | undefined)?.hint).toMatch(
        /field "integer" must be of type integer\. Please provide inputs/,
      );
      const resumed = await collect(
        second,
        answer(again?.id as string, {
          confirmed: true,
          payload: { action: 'accept', content: { name: 'Ada Lovelace', check: true, integer: 7 } },
        }),
      );
      const response = responsesOf(resumed).find((r) => r.name === 'trigger-elicitation-request');
      const text = JSON.stringify(response?.response);
      expect(text).toContain('Ada Lovelace');
      expect(text).toMatch(/accept/);
    } finally {
      await secondToolset.close();
    }
  });

  it('answers in code with elicitationHandler, and a refusal reaches the model as a rejection', async () => {
    const seen: McpElicitationRequest[] = [];
    const toolset = new McpToolset({
      name: 'everything',
      connection,
      elicitationHandler: (request) => {
        seen.push(request);
        return { action: 'decline' };
      },
    });
    try {
      const runner = new Runner({
        appName: 'elicit',
        agent: new LlmAgent({
          name: 'assistant',
          model: new ScriptedModel({
            script: [functionCallResponse('trigger-elicitation-request', {}, 'c1'), 'ok'],
          }),
          tools: [toolset],
        }),
        sessionService: new InMemorySessionService(),
        autoCreateSession: true,
      });
      const events = await collect(runner, userContent('go'));
      expect(confirmationCalls(events)).toEqual([]);
      expect(seen[0]).toMatchObject({ mode: 'form', tool: 'trigger-elicitation-request' });
      expect(JSON.stringify(responsesOf(events)[0]?.response)).toMatch(/decline/);
    } finally {
      await toolset.close();
    }
  });

  it('shows the link of a URL elicitation; consent continues the call', async () => {
    const toolset = new McpToolset({ name: 'everything', connection });
    try {
      const runner = new Runner({
        appName: 'elicit',
        agent: new LlmAgent({
          name: 'assistant',
          model: new ScriptedModel({
            script: [
              functionCallResponse(
                'trigger-url-elicitation',
                { url: 'https://example.com/connect', message: 'Connect your account' },
                'c1',
              ),
              'Connected.',
            ],
          }),
          tools: [toolset],
        }),
        sessionService: new InMemorySessionService(),
        autoCreateSession: true,
      });
      const paused = await collect(runner, userContent('connect'));
      const [question] = confirmationCalls(paused);
      const confirmation = question?.args.toolConfirmation as {
        hint: string;
        payload: Record<string, unknown>;
      };
      expect(confirmation.hint).toBe('Connect your account https://example.com/connect');
      expect((confirmation.payload[MCP_ELICITATION] as StoredElicitation).question).toMatchObject({
        mode: 'url',
        url: 'https://example.com/connect',
        elicitationId: expect.any(String),
      });
      const resumed = await collect(runner, answer(question?.id as string, { confirmed: true }));
      const response = responsesOf(resumed).find((r) => r.name === 'trigger-url-elicitation');
      expect(JSON.stringify(response?.response)).toMatch(/accept/);
    } finally {
      await toolset.close();
    }
  });
});
