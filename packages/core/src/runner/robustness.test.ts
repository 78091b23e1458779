import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Content,
  type Event,
  FunctionTool,
  InMemorySessionService,
  isAdkError,
  LlmAgent,
  ParallelAgent,
  REQUEST_CONFIRMATION,
  Runner,
  runAgent,
  SequentialAgent,
  userContent,
} from '../index.js';
import { functionCallResponse, ScriptedModel } from '../testing/index.js';

async function collect(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

const texts = (events: Event[]) =>
  events
    .filter((e) => e.author !== 'user' && !e.partial && e.content?.parts[0]?.text)
    .map((e) => `${e.author}: ${e.content?.parts[0]?.text}`);

describe('robustness', () => {
  it('a model error in one parallel branch ends only that branch; siblings and later agents run', async () => {
    const tick = new FunctionTool({
      name: 'tick',
      description: '',
      parameters: z.object({}),
      execute: () => ({ ok: true }),
    });
    const a = new LlmAgent({ name: 'a', model: new ScriptedModel([new Error('a is down')]) });
    const b = new LlmAgent({
      name: 'b',
      model: new ScriptedModel({ script: [functionCallResponse('tick'), 'b done'], delayMs: 5 }),
      tools: [tick],
    });
    const after = new LlmAgent({ name: 'after', model: new ScriptedModel(['after ran']) });
    const result = await runAgent(
      new SequentialAgent({
        name: 'seq',
        subAgents: [new ParallelAgent({ name: 'par', subAgents: [a, b] }), after],
      }),
      'go',
    );
    expect(result.events.find((e) => e.author === 'a')?.errorMessage).toBe('Model call failed: a is down');
    expect(texts(result.events)).toEqual(['b: b done', 'after: after ran']);
  });

  it('a confirmation answer is found even when a callback commits an event before the flow runs', async () => {
    const ran: number[] = [];
    const pay = new FunctionTool({
      name: 'pay',
      description: '',
      parameters: z.object({ n: z.number() }),
      requireConfirmation: true,
      execute: ({ n }) => {
        ran.push(n);
        return { paid: n };
      },
    });
    const agent = new LlmAgent({
      name: 'bank',
      model: new ScriptedModel([functionCallResponse('pay', { n: 7 }), 'paid']),
      tools: [pay],
      beforeAgentCallback: ({ context }) => {
        context.state.set('turns', ((context.state.get<number>('turns') ?? 0) as number) + 1);
      },
    });
    const runner = new Runner({
      appName: 'app',
      agent,
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    const send = (m: Content) => collect(runner.run({ userId: 'u', sessionId: 's', newMessage: m }));
    const first = await send(userContent('pay 7'));
    const id = first.at(-1)!.content!.parts[0]!.functionCall!.id;
    const second = await send({
      role: 'user',
      parts: [{ functionResponse: { id, name: REQUEST_CONFIRMATION, response: { confirmed: true } } }],
    });
    expect(ran).toEqual([7]);
    expect(texts(second)).toEqual(['bank: paid']);
  });

  it('a call left unanswered gets an error response in later requests, so calls and responses always pair', async () => {
    const wait = new FunctionTool({
      name: 'wait_for_human',
      description: '',
      parameters: z.object({}),
      isLongRunning: true,
      execute: () => undefined,
    });
    const model = new ScriptedModel([functionCallResponse('wait_for_human', {}, 'lr-1'), 'moving on']);
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({ name: 'a', model, tools: [wait] }),
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('start') }));
    await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('never mind') }));
    expect(model.requests[1]!.contents).toEqual([
      userContent('start'),
      { role: 'model', parts: [{ functionCall: { id: 'lr-1', name: 'wait_for_human', args: {} } }] },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'lr-1',
              name: 'wait_for_human',
              response: { error: 'No response was received for this call.' },
            },
          },
        ],
      },
      userContent('never mind'),
    ]);
  });

  it('a transfer requested by an ordinary tool to a disallowed agent is an error, not a jump across the tree', async () => {
    const sneaky = new FunctionTool({
      name: 'sneaky',
      description: '',
      parameters: z.object({}),
      execute: (_a, ctx) => {
        ctx.transferToAgent('vault');
        return {};
      },
    });
    const vaultModel = new ScriptedModel(['secrets']);
    const vault = new LlmAgent({ name: 'vault', model: vaultModel });
    const worker = new LlmAgent({
      name: 'worker',
      model: new ScriptedModel([functionCallResponse('sneaky')]),
      tools: [sneaky],
      disallowTransferToParent: true,
      disallowTransferToPeers: true,
    });
    const root = new LlmAgent({
      name: 'root',
      model: new ScriptedModel([functionCallResponse('transfer_to_agent', { agent_name: 'worker' })]),
      subAgents: [worker, vault],
    });
    const result = await runAgent(root, 'go', { rejectOnError: false });
    expect(result.error?.code).toBe('INVALID_TRANSFER');
    expect(vaultModel.requests).toHaveLength(0);
  });

  it('a throwing tool callback becomes an error response for that call only', async () => {
    const ok = new FunctionTool({
      name: 'ok',
      description: '',
      parameters: z.object({}),
      execute: () => ({ fine: true }),
    });
    const model = new ScriptedModel([
      { content: { role: 'model', parts: [{ functionCall: { id: '1', name: 'ok', args: {} } }] } },
      'done',
    ]);
    const result = await runAgent(
      new LlmAgent({
        name: 'a',
        model,
        tools: [ok],
        afterToolCallback: () => {
          throw new Error('callback bug');
        },
      }),
      'go',
    );
    expect(model.requests[1]!.contents.at(-1)?.parts[0]?.functionResponse?.response).toEqual({
      error: 'Tool "ok" failed: callback bug',
    });
    expect(result.text).toBe('done');
  });

  it('a queued run gives up when its signal aborts; afterRun runs even after a failure', async () => {
    const afterRuns: string[] = [];
    const model = new ScriptedModel({ respond: () => 'slow', delayMs: 200 });
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({ name: 'a', model }),
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
      plugins: [
        {
          name: 'p',
          afterRun: ({ context }) => {
            afterRuns.push(context.invocationId);
          },
        },
      ],
    });
    const first = collect(
      runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('one'), invocationId: 'first' }),
    );
    const controller = new AbortController();
    const second = collect(
      runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('two'), signal: controller.signal }),
    );
    setTimeout(() => controller.abort(), 20);
    await expect(second).rejects.toSatisfy((e) => isAdkError(e, 'CANCELLED'));
    await first;

    const failing = new Runner({
      appName: 'app',
      agent: new LlmAgent({ name: 'b', model: new ScriptedModel([new Error('boom')]) }),
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
      plugins: [{ name: 'q', afterRun: () => void afterRuns.push('after failure') }],
    });
    await collect(failing.run({ userId: 'u', sessionId: 's', newMessage: userContent('x') }));
    expect(afterRuns).toEqual(['first', 'after failure']);
  });
});
