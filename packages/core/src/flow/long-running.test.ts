import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Content,
  type Event,
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  Runner,
  SequentialAgent,
  userContent,
} from '../index.js';
import { functionCallResponse, functionCallsResponse, ScriptedModel } from '../testing/index.js';

async function collect(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

function setup(agent: LlmAgent | SequentialAgent) {
  const sessionService = new InMemorySessionService();
  const runner = new Runner({ appName: 'app', agent, sessionService, autoCreateSession: true });
  const send = (newMessage: Content) => collect(runner.run({ userId: 'u', sessionId: 's', newMessage }));
  const session = async () =>
    (await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' }))!;
  return { send, session };
}

const answer = (id: string, response: Record<string, unknown>, name = 'open_ticket'): Content => ({
  role: 'user',
  parts: [{ functionResponse: { id, name, response } }],
});

function ticketTool(result: unknown) {
  return new FunctionTool({
    name: 'open_ticket',
    description: 'Opens a refund ticket',
    parameters: z.object({ amount: z.number() }),
    isLongRunning: true,
    execute: () => result,
  });
}

describe('long-running tools', () => {
  it('an interim result is committed and the model is called again; the final answer resumes later', async () => {
    const model = new ScriptedModel([
      functionCallResponse('open_ticket', { amount: 100 }, 'call-1'),
      'Your refund request was submitted.',
      'Your refund was approved.',
    ]);
    const agent = new LlmAgent({
      name: 'assistant',
      model,
      tools: [ticketTool({ status: 'pending', ticket: 'T-1' })],
    });
    const { send, session } = setup(agent);

    const first = await send(userContent('refund 100'));
    expect(first.map((e) => e.author)).toEqual(['user', 'assistant', 'assistant', 'assistant']);
    expect(first[1]!.longRunningToolIds).toEqual(['call-1']);
    expect(first[2]!.content!.parts[0]!.functionResponse).toEqual({
      id: 'call-1',
      name: 'open_ticket',
      response: { status: 'pending', ticket: 'T-1' },
    });
    expect(first[3]!.content!.parts[0]!.text).toBe('Your refund request was submitted.');
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.contents.at(-1)!.parts[0]!.functionResponse!.response).toEqual({
      status: 'pending',
      ticket: 'T-1',
    });

    // Days later the ticketing system posts the final result under the same id.
    const second = await send(answer('call-1', { status: 'approved', ticket: 'T-1' }));
    expect(second.map((e) => e.author)).toEqual(['user', 'assistant']);
    expect(second[1]!.content!.parts[0]!.text).toBe('Your refund was approved.');
    // The third request is rearranged: the merged answer right after the call, the turns in between left out.
    expect(model.requests[2]!.contents).toEqual([
      userContent('refund 100'),
      {
        role: 'model',
        parts: [{ functionCall: { id: 'call-1', name: 'open_ticket', args: { amount: 100 } } }],
      },
      answer('call-1', { status: 'approved', ticket: 'T-1' }),
    ]);
    // The session keeps every event.
    const stored = (await session()).events;
    expect(stored).toHaveLength(6);
    expect(stored[3]!.content!.parts[0]!.text).toBe('Your refund request was submitted.');
  });

  it('a long-running tool that returns undefined or null pauses the invocation', async () => {
    for (const result of [undefined, null]) {
      const model = new ScriptedModel([functionCallResponse('open_ticket', { amount: 5 }, 'call-9'), 'done']);
      const { send } = setup(new LlmAgent({ name: 'assistant', model, tools: [ticketTool(result)] }));
      const events = await send(userContent('refund 5'));
      expect(events).toHaveLength(2);
      expect(events[1]!.longRunningToolIds).toEqual(['call-9']);
      expect(model.requests).toHaveLength(1);
      const resumed = await send(answer('call-9', { status: 'approved' }));
      expect(resumed.at(-1)!.content!.parts[0]!.text).toBe('done');
      expect(model.requests[1]!.contents.at(-1)).toEqual(answer('call-9', { status: 'approved' }));
    }
  });

  it('a long-running call still waiting pauses the turn even when another call of it answered', async () => {
    const lookup = new FunctionTool({
      name: 'lookup',
      description: 'Looks up an order',
      parameters: z.object({}),
      execute: () => ({ order: 7 }),
    });
    const model = new ScriptedModel([
      functionCallsResponse([
        { name: 'open_ticket', args: { amount: 1 }, id: 'lr' },
        { name: 'lookup', id: 'plain' },
      ]),
    ]);
    const { send } = setup(
      new LlmAgent({ name: 'assistant', model, tools: [ticketTool(undefined), lookup] }),
    );
    const events = await send(userContent('go'));
    expect(events).toHaveLength(3);
    expect(model.requests).toHaveLength(1);
  });

  it('an interim result does not pause the SequentialAgent around the agent', async () => {
    const firstModel = new ScriptedModel([
      functionCallResponse('open_ticket', { amount: 1 }, 'call-2'),
      'submitted',
    ]);
    const nextModel = new ScriptedModel(['next step ran']);
    const pipeline = new SequentialAgent({
      name: 'pipeline',
      subAgents: [
        new LlmAgent({ name: 'intake', model: firstModel, tools: [ticketTool({ status: 'pending' })] }),
        new LlmAgent({ name: 'follow_up', model: nextModel }),
      ],
    });
    const { send } = setup(pipeline);
    const events = await send(userContent('refund'));
    expect(events.at(-1)!.author).toBe('follow_up');
    expect(nextModel.requests).toHaveLength(1);
  });

  it('rearranges only the one request: answers merge after their call, later turns keep full history', async () => {
    const model = new ScriptedModel([
      functionCallsResponse([
        { name: 'open_ticket', args: { amount: 1 }, id: 'a' },
        { name: 'open_ticket', args: { amount: 2 }, id: 'b' },
      ]),
      'both submitted',
      'first approved',
      'thanks',
    ]);
    const agent = new LlmAgent({ name: 'assistant', model, tools: [ticketTool({ status: 'pending' })] });
    const { send } = setup(agent);
    await send(userContent('two refunds'));
    await send(answer('a', { status: 'approved' }));
    const callTurn: Content = {
      role: 'model',
      parts: [
        { functionCall: { id: 'a', name: 'open_ticket', args: { amount: 1 } } },
        { functionCall: { id: 'b', name: 'open_ticket', args: { amount: 2 } } },
      ],
    };
    // The call's interim responses, with the newest answer in place of the interim one for "a".
    expect(model.requests[2]!.contents).toEqual([
      userContent('two refunds'),
      callTurn,
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'a', name: 'open_ticket', response: { status: 'approved' } } },
          { functionResponse: { id: 'b', name: 'open_ticket', response: { status: 'pending' } } },
        ],
      },
    ]);
    await send(userContent('ok'));
    // A later turn that does not end with an answer is not rearranged: every turn is there.
    const texts = model.requests[3]!.contents.map((c) => c.parts[0]!.text ?? c.role);
    expect(texts).toEqual(['two refunds', 'model', 'user', 'both submitted', 'first approved', 'ok']);
  });
});

describe('events made from model responses', () => {
  it("keep the response's modelVersion, logprobs, cache and citation metadata in the stored event", async () => {
    const model = new ScriptedModel([
      {
        content: { role: 'model', parts: [{ text: 'hello' }] },
        finishReason: 'STOP',
        modelVersion: 'gemini-2.5-flash-002',
        avgLogprobs: -0.5,
        logprobsResult: { chosenCandidates: [{ token: 'hello', logProbability: -0.5 }] },
        cacheMetadata: { cacheName: 'c/1', invocationsUsed: 1 },
        citationMetadata: { citations: [{ startIndex: 0, endIndex: 5 }] },
      },
    ]);
    const { send, session } = setup(new LlmAgent({ name: 'assistant', model }));
    const events = await send(userContent('hi'));
    const expected = {
      modelVersion: 'gemini-2.5-flash-002',
      avgLogprobs: -0.5,
      logprobsResult: { chosenCandidates: [{ token: 'hello', logProbability: -0.5 }] },
      cacheMetadata: { cacheName: 'c/1', invocationsUsed: 1 },
      citationMetadata: { citations: [{ startIndex: 0, endIndex: 5 }] },
    };
    expect(events[1]).toMatchObject(expected);
    expect((await session()).events[1]).toMatchObject(expected);
  });
});
