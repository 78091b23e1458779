import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AgentTool,
  BaseAgent,
  type Content,
  type Event,
  exitLoopTool,
  FunctionAgent,
  FunctionTool,
  InMemorySessionService,
  type InvocationContext,
  LlmAgent,
  type LlmRequest,
  LoopAgent,
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

function conversation(agent: BaseAgent, sessionService = new InMemorySessionService()) {
  const runner = new Runner({ appName: 'app', agent, sessionService, autoCreateSession: true });
  return {
    runner,
    sessionService,
    send: (message: string | Content, runConfig = {}) =>
      collect(
        runner.run({
          userId: 'u',
          sessionId: 's',
          newMessage: typeof message === 'string' ? userContent(message) : message,
          runConfig,
        }),
      ),
    session: () => sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' }),
  };
}

const texts = (events: Event[]) =>
  events
    .filter((e) => e.author !== 'user' && !e.partial && e.content?.parts[0]?.text)
    .map((e) => `${e.author}: ${e.content?.parts[0]?.text}`);

describe('workflow agents', () => {
  it('SequentialAgent runs sub-agents in order; state written by one is visible to the next', async () => {
    const writer = new LlmAgent({
      name: 'writer',
      model: new ScriptedModel(['a draft']),
      outputKey: 'draft',
    });
    const reviewerModel = new ScriptedModel(['looks good']);
    const reviewer = new LlmAgent({ name: 'reviewer', model: reviewerModel, instruction: 'Review: {draft}' });
    const log: string[] = [];
    const pipeline = new SequentialAgent({
      name: 'pipeline',
      subAgents: [writer, reviewer],
      beforeAgentCallback: () => {
        log.push('before pipeline');
      },
      afterAgentCallback: ({ context }) => {
        log.push('after pipeline');
        context.state.set('done', true);
      },
    });
    const result = await runAgent(pipeline, 'write something');
    expect(texts(result.events)).toEqual(['writer: a draft', 'reviewer: looks good']);
    expect(reviewerModel.requests[0]!.systemInstruction).toContain('Review: a draft');
    expect(log).toEqual(['before pipeline', 'after pipeline']);
    expect(result.session.state).toMatchObject({ draft: 'a draft', done: true });
  });

  it('ParallelAgent isolates branches, interleaves their events, and commits each before the branch goes on', async () => {
    const slow = new ScriptedModel({ script: ['slow 1', 'slow 2'], delayMs: 40 });
    const fast = new ScriptedModel({ script: ['fast 1', 'fast 2'], delayMs: 5 });
    const tick = new FunctionTool({
      name: 'tick',
      description: '',
      parameters: z.object({}),
      execute: () => ({ t: 1 }),
    });
    const a = new LlmAgent({ name: 'a', model: slow });
    const b = new LlmAgent({
      name: 'b',
      model: new ScriptedModel({ script: [functionCallResponse('tick'), 'b done'], delayMs: 10 }),
      tools: [tick],
    });
    const c = new LlmAgent({ name: 'c', model: fast });
    const fanout = new ParallelAgent({ name: 'fanout', subAgents: [a, b, c] });
    const { send, session } = conversation(fanout);
    const events = await send('go');
    const authors = events.slice(1).map((e) => e.author);
    expect(authors.indexOf('c')).toBeLessThan(authors.indexOf('a'));
    expect(events.find((e) => e.author === 'a')?.branch).toBe('fanout.a');
    expect(events.find((e) => e.author === 'b')?.branch).toBe('fanout.b');
    expect((await session())?.events).toHaveLength(events.length);

    // A second turn: each branch sees the user turns and only its own replies.
    await send('again');
    const second = slow.requests[1]!.contents;
    expect(second.map((c) => c.parts[0]?.text)).toEqual(['go', 'slow 1', 'again']);
    expect(JSON.stringify(second)).not.toContain('fast');
  });

  it('a failing branch becomes an error event while the others finish; failFast stops them', async () => {
    const boom = new FunctionAgent({
      name: 'boom',
      // biome-ignore lint/correctness/useYield: fails before producing anything
      async *run() {
        throw new Error('branch exploded');
      },
    });
    const ok = new LlmAgent({ name: 'ok', model: new ScriptedModel({ script: ['fine'], delayMs: 20 }) });
    const events = (await runAgent(new ParallelAgent({ name: 'par', subAgents: [boom, ok] }), 'go')).events;
    expect(events.find((e) => e.author === 'boom')?.errorMessage).toBe('Branch boom failed: branch exploded');
    expect(texts(events)).toEqual(['ok: fine']);

    const slowOk = new LlmAgent({
      name: 'slow_ok',
      model: new ScriptedModel({ script: ['late'], delayMs: 2_000 }),
    });
    const boom2 = new FunctionAgent({
      name: 'boom2',
      // biome-ignore lint/correctness/useYield: fails before producing anything
      async *run() {
        throw new Error('stop all');
      },
    });
    const started = Date.now();
    const ff = await runAgent(
      new ParallelAgent({ name: 'ff', subAgents: [boom2, slowOk], failFast: true }),
      'go',
      { rejectOnError: false },
    );
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(texts(ff.events)).toEqual([]);
    expect(ff.events.some((e) => e.errorMessage === 'Branch boom2 failed: stop all')).toBe(true);
  });

  it('LoopAgent stops at maxIterations, or when a sub-agent escalates with exit_loop', async () => {
    const counter = new FunctionAgent({
      name: 'counter',
      async *run(ctx, self) {
        const n = ((ctx.session.state.n as number | undefined) ?? 0) + 1;
        yield self.event(ctx, {
          content: { role: 'model', parts: [{ text: `n=${n}` }] },
          actions: { stateDelta: { n } },
        });
      },
    });
    const looped = await runAgent(
      new LoopAgent({ name: 'loop', subAgents: [counter], maxIterations: 3 }),
      'count',
    );
    expect(texts(looped.events)).toEqual(['counter: n=1', 'counter: n=2', 'counter: n=3']);

    const critic = new LlmAgent({
      name: 'critic',
      model: new ScriptedModel({
        respond: (req: LlmRequest) =>
          JSON.stringify(req.contents).includes('v2') ? functionCallResponse('exit_loop') : 'revise',
      }),
      tools: [exitLoopTool],
    });
    let version = 0;
    const drafter = new FunctionAgent({
      name: 'drafter',
      async *run(ctx, self) {
        version++;
        yield self.event(ctx, { content: { role: 'model', parts: [{ text: `v${version}` }] } });
      },
    });
    const refine = new LoopAgent({ name: 'refine', subAgents: [drafter, critic], maxIterations: 10 });
    const after = new LlmAgent({ name: 'after', model: new ScriptedModel(['published']) });
    const result = await runAgent(new SequentialAgent({ name: 'flow', subAgents: [refine, after] }), 'go');
    expect(version).toBe(2);
    expect(texts(result.events)).toEqual([
      'drafter: v1',
      'critic: revise',
      'drafter: v2',
      'after: published',
    ]);
  });

  it('custom agents can subclass BaseAgent', async () => {
    class Greeter extends BaseAgent {
      protected async *runImpl(ctx: InvocationContext) {
        yield this.makeEvent(ctx, { content: { role: 'model', parts: [{ text: `hello ${ctx.userId}` }] } });
      }
    }
    expect((await runAgent(new Greeter({ name: 'greeter' }), 'hi', { userId: 'ada' })).text).toBe(
      'hello ada',
    );
  });
});

describe('agent tree', () => {
  it('checks unique names, links parents, and finds agents by name', () => {
    const leaf = new LlmAgent({ name: 'leaf' });
    const mid = new SequentialAgent({ name: 'mid', subAgents: [leaf] });
    const root = new LlmAgent({ name: 'root', subAgents: [mid] });
    expect(leaf.parentAgent).toBe(mid);
    expect(leaf.rootAgent).toBe(root);
    expect(root.findAgent('leaf')).toBe(leaf);
    expect(root.findAgent('nope')).toBeUndefined();
    expect(
      () =>
        new SequentialAgent({
          name: 'x',
          subAgents: [new LlmAgent({ name: 'dup' }), new LlmAgent({ name: 'dup' })],
        }),
    ).toThrow(/unique/);
    expect(() => new SequentialAgent({ name: 'other', subAgents: [leaf] })).toThrow(/already has a parent/);
    expect(() => new LlmAgent({ name: 'bad name' })).toThrow(/Invalid agent name/);
    expect(() => new LlmAgent({ name: 'user' })).toThrow(/reserved/);
  });
});

describe('transfer', () => {
  function tree() {
    const billingModel = new ScriptedModel(['Your invoice is paid.', 'Refund issued.']);
    const billing = new LlmAgent({
      name: 'billing',
      description: 'Handles invoices and refunds',
      model: billingModel,
    });
    const supportModel = new ScriptedModel(['Try restarting.']);
    const support = new LlmAgent({
      name: 'support',
      description: 'Technical help',
      model: supportModel,
      disallowTransferToPeers: true,
    });
    const rootModel = new ScriptedModel([
      functionCallResponse('transfer_to_agent', { agent_name: 'billing' }),
    ]);
    const root = new LlmAgent({ name: 'desk', model: rootModel, subAgents: [billing, support] });
    return { root, rootModel, billingModel, supportModel };
  }

  it('lists the targets in the schema and the instruction; the target runs in the same invocation; the next turn continues with it', async () => {
    const { root, rootModel, billingModel } = tree();
    const { send } = conversation(root);
    const first = await send('Is my invoice paid?');
    expect(texts(first)).toEqual(['billing: Your invoice is paid.']);
    expect(new Set(first.map((e) => e.invocationId)).size).toBe(1);
    const req = rootModel.requests[0]!;
    expect(req.tools?.find((t) => t.name === 'transfer_to_agent')?.parameters).toMatchObject({
      properties: { agent_name: { enum: ['billing', 'support'] } },
    });
    expect(req.systemInstruction).toContain(
      '\nAgent name: billing\nAgent description: Handles invoices and refunds\n',
    );
    expect(req.systemInstruction).toContain('\nAgent name: support\nAgent description: Technical help\n');
    // billing sees the desk's transfer as context, not as its own call
    expect(JSON.stringify(billingModel.requests[0]!.contents)).toContain(
      '[desk] called tool `transfer_to_agent`',
    );

    const second = await send('And refund the other one');
    expect(texts(second)).toEqual(['billing: Refund issued.']);
    expect(rootModel.requests).toHaveLength(1);
  });

  it('billing may transfer to its parent and peers; support (peers disallowed) only to its parent', async () => {
    const { root, billingModel, supportModel } = tree();
    void root;
    const runner = conversation(root);
    await runner.send('x').catch(() => undefined);
    expect(billingModel.requests[0]!.tools?.[0]?.parameters).toMatchObject({
      properties: { agent_name: { enum: ['desk', 'support'] } },
    });
    const support = root.findAgent('support') as LlmAgent;
    expect(support.disallowTransferToPeers).toBe(true);
    expect(supportModel.requests).toHaveLength(0);
  });

  it('a nonexistent or disallowed target is an error response to the model, never a silent no-op', async () => {
    const support = new LlmAgent({
      name: 'support',
      model: new ScriptedModel([
        functionCallResponse('transfer_to_agent', { agent_name: 'billing' }),
        'ok, I will help myself',
      ]),
      disallowTransferToPeers: true,
      disallowTransferToParent: true,
    });
    const billing = new LlmAgent({ name: 'billing', model: new ScriptedModel([]) });
    const rootModel = new ScriptedModel([
      functionCallResponse('transfer_to_agent', { agent_name: 'ghost' }),
      functionCallResponse('transfer_to_agent', { agent_name: 'support' }),
    ]);
    const root = new LlmAgent({ name: 'desk', model: rootModel, subAgents: [support, billing] });
    const result = await runAgent(root, 'help');
    const errors = result.events
      .flatMap((e) => e.content?.parts ?? [])
      .map((p) => p.functionResponse?.response.error)
      .filter(Boolean);
    expect(errors[0]).toMatch(/Cannot transfer to "ghost".*Valid agents: support, billing/);
    expect(errors[1]).toMatch(/Tool "transfer_to_agent" does not exist/);
    expect(result.text).toBe('ok, I will help myself');
  });
});

describe('AgentTool', () => {
  it('runs an agent as a tool with input and output schemas; its state flows back', async () => {
    const innerModel = new ScriptedModel(['{"celsius":21}']);
    const converter = new LlmAgent({
      name: 'converter',
      description: 'Converts temperatures',
      model: innerModel,
      outputSchema: z.object({ celsius: z.number() }),
      outputKey: 'last_conversion',
    });
    const tool = new AgentTool({ agent: converter, inputSchema: z.object({ fahrenheit: z.number() }) });
    const outerModel = new ScriptedModel([
      functionCallResponse('converter', { fahrenheit: 70 }),
      'It is 21 °C.',
    ]);
    const result = await runAgent(
      new LlmAgent({ name: 'assistant', model: outerModel, tools: [tool] }),
      '70F in C?',
    );
    expect(outerModel.requests[0]!.tools?.[0]).toMatchObject({
      name: 'converter',
      description: 'Converts temperatures',
    });
    expect(innerModel.requests[0]!.contents[0]).toEqual(userContent('{"fahrenheit":70}'));
    expect(outerModel.requests[1]!.contents.at(-1)?.parts[0]?.functionResponse?.response).toEqual({
      celsius: 21,
    });
    expect(result.session.state.last_conversion).toEqual({ celsius: 21 });
    expect(result.text).toBe('It is 21 °C.');
  });

  it('skipSummarization ends the caller’s turn with the agent’s answer; inner events can be streamed', async () => {
    const inner = new LlmAgent({
      name: 'poet',
      description: 'Writes poems',
      model: new ScriptedModel(['Roses are red']),
    });
    const outerModel = new ScriptedModel([functionCallResponse('poet', { request: 'a poem' })]);
    const outer = new LlmAgent({
      name: 'assistant',
      model: outerModel,
      tools: [new AgentTool({ agent: inner, skipSummarization: true })],
    });
    const { send } = conversation(outer);
    const events = await send('poem please', { streaming: true, streamAgentToolEvents: true });
    expect(outerModel.requests).toHaveLength(1);
    const streamed = events.filter((e) => e.customMetadata?.agentTool === 'poet');
    expect(streamed.some((e) => e.partial && e.content?.parts[0]?.text === 'Rose')).toBe(true);
    expect(streamed.every((e) => e.partial)).toBe(true);
    expect(events.at(-1)?.content?.parts[0]?.functionResponse?.response).toEqual({ result: 'Roses are red' });
  });
});

describe('human in the loop', () => {
  it('a long-running call pauses; a later function response resumes the same (sub-)agent', async () => {
    const ask = new FunctionTool({
      name: 'ask_manager',
      description: 'Asks a manager to approve a refund',
      parameters: z.object({ amount: z.number() }),
      isLongRunning: true,
      execute: () => undefined,
    });
    const refundsModel = new ScriptedModel([
      functionCallResponse('ask_manager', { amount: 50 }),
      'Refund approved and sent.',
    ]);
    const refunds = new LlmAgent({ name: 'refunds', model: refundsModel, tools: [ask] });
    const root = new LlmAgent({
      name: 'desk',
      model: new ScriptedModel([functionCallResponse('transfer_to_agent', { agent_name: 'refunds' })]),
      subAgents: [refunds],
    });
    const { send } = conversation(root);
    const first = await send('refund 50');
    const paused = first.at(-1)!;
    expect(paused.author).toBe('refunds');
    const callId = paused.longRunningToolIds?.[0];
    expect(callId).toBeDefined();
    const second = await send({
      role: 'user',
      parts: [{ functionResponse: { id: callId!, name: 'ask_manager', response: { approved: true } } }],
    });
    expect(texts(second)).toEqual(['refunds: Refund approved and sent.']);
    expect(refundsModel.requests[1]!.contents.at(-1)?.parts[0]?.functionResponse).toEqual({
      id: callId,
      name: 'ask_manager',
      response: { approved: true },
    });
  });

  function confirmAgent(model: ScriptedModel, ran: number[]) {
    const transfer = new FunctionTool({
      name: 'wire_money',
      description: 'Sends money',
      parameters: z.object({ amount: z.number() }),
      requireConfirmation: ({ amount }) => amount > 100,
      execute: ({ amount }) => {
        ran.push(amount);
        return { sent: amount };
      },
    });
    return new LlmAgent({ name: 'bank', model, tools: [transfer] });
  }

  it('a confirmation request pauses; approval runs the tool', async () => {
    const ran: number[] = [];
    const model = new ScriptedModel([
      functionCallResponse('wire_money', { amount: 500 }, 'call-1'),
      'Sent 500.',
    ]);
    const { send, session } = conversation(confirmAgent(model, ran));
    const first = await send('wire 500');
    const request = first.at(-1)!;
    const confirmationCall = request.content?.parts[0]?.functionCall;
    expect(confirmationCall?.name).toBe(REQUEST_CONFIRMATION);
    expect(confirmationCall?.args.originalFunctionCall).toEqual({
      id: 'call-1',
      name: 'wire_money',
      args: { amount: 500 },
    });
    expect(request.longRunningToolIds).toEqual([confirmationCall?.id]);
    expect(ran).toEqual([]);

    const second = await send({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: confirmationCall!.id,
            name: REQUEST_CONFIRMATION,
            response: { confirmed: true },
          },
        },
      ],
    });
    expect(ran).toEqual([500]);
    expect(texts(second)).toEqual(['bank: Sent 500.']);
    // The model never sees the framework's confirmation exchange, only its own call and the response.
    const contents = model.requests[1]!.contents;
    expect(JSON.stringify(contents)).not.toContain(REQUEST_CONFIRMATION);
    expect(contents.at(-1)?.parts[0]?.functionResponse).toEqual({
      id: 'call-1',
      name: 'wire_money',
      response: { sent: 500 },
    });
    expect((await session())?.events.length).toBe(second.length + first.length);
  });

  it('a rejection returns an error response to the model; small amounts need no confirmation', async () => {
    const ran: number[] = [];
    const model = new ScriptedModel([
      functionCallResponse('wire_money', { amount: 900 }, 'call-9'),
      'Cancelled as you asked.',
      functionCallResponse('wire_money', { amount: 5 }),
      'Sent 5.',
    ]);
    const { send } = conversation(confirmAgent(model, ran));
    const first = await send('wire 900');
    const id = first.at(-1)!.content!.parts[0]!.functionCall!.id;
    const second = await send({
      role: 'user',
      parts: [{ functionResponse: { id, name: REQUEST_CONFIRMATION, response: { confirmed: false } } }],
    });
    expect(ran).toEqual([]);
    expect(model.requests[1]!.contents.at(-1)?.parts[0]?.functionResponse?.response).toEqual({
      error: 'The user rejected this call of "wire_money".',
    });
    expect(texts(second)).toEqual(['bank: Cancelled as you asked.']);
    const third = await send('wire 5');
    expect(ran).toEqual([5]);
    expect(texts(third)).toEqual(['bank: Sent 5.']);
  });
});

describe('streaming through the tree', () => {
  it('partial events from sub-agents reach the caller', async () => {
    const a = new LlmAgent({ name: 'a', model: new ScriptedModel({ script: ['alpha beta'], chunkSize: 5 }) });
    const b = new LlmAgent({ name: 'b', model: new ScriptedModel({ script: ['gamma'], chunkSize: 5 }) });
    const { send } = conversation(new SequentialAgent({ name: 'seq', subAgents: [a, b] }));
    const events = await send('go', { streaming: true });
    expect(events.filter((e) => e.partial).map((e) => `${e.author}:${e.content?.parts[0]?.text}`)).toEqual([
      'a:alpha',
      'a: beta',
      'b:gamma',
    ]);
  });
});
