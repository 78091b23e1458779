import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AgentTool,
  BaseNode,
  type Event,
  FunctionNode,
  FunctionTool,
  InMemoryRunner,
  isWorkflow,
  JoinNode,
  LlmAgent,
  type NodeContext,
  node,
  type Plugin,
  REQUEST_CONFIRMATION,
  REQUEST_INPUT,
  RequestInput,
  runAgent,
  runAgentText,
  START,
  userContent,
  Workflow,
} from '../index.js';
import { functionCallResponse, ScriptedModel } from '../testing/index.js';

async function collect(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

const rootOutput = (events: Event[], name: string) =>
  events.find((e) => e.nodeInfo?.outputFor?.includes(`${name}@1`))?.output;

describe('Workflow: node hooks', () => {
  it('beforeNode can answer for a node; afterNode can replace its output', async () => {
    let doubled = 0;
    const double = (_ctx: NodeContext, n: unknown) => {
      doubled++;
      return Number(n) * 2;
    };
    const inc = (_ctx: NodeContext, n: unknown) => Number(n) + 1;
    const seen: string[] = [];
    const plugin: Plugin = {
      name: 'hooks',
      beforeNode: ({ node, context, input }) => {
        seen.push(`before ${node.name} ${context.path} ${JSON.stringify(input)}`);
        if (node.name === 'double') return 100;
        return undefined;
      },
      afterNode: ({ node, output }) => {
        seen.push(`after ${node.name} ${JSON.stringify(output)}`);
        if (node.name === 'inc') return Number(output) * 10;
        return undefined;
      },
    };
    const wf = new Workflow({ name: 'wf', edges: [START, double, inc] });
    const runner = new InMemoryRunner({ agent: wf, plugins: [plugin] });
    const events = await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('1') }));
    expect(doubled).toBe(0);
    expect(rootOutput(events, 'wf')).toBe(1010);
    expect(seen).toContain('before double wf@1/double@1 "1"');
    expect(seen).toContain('after inc 101');
  });
});

describe('Workflow: composition', () => {
  it("an agent node sees its input, not the workflow's question exchange or its siblings' turns", async () => {
    const requests: string[] = [];
    const model = new ScriptedModel({
      respond: (req) => {
        requests.push(JSON.stringify(req.contents));
        return 'written';
      },
    });
    const writer = new LlmAgent({ name: 'writer', model });
    const other = new LlmAgent({
      name: 'other',
      model: new ScriptedModel({ respond: () => 'secret sibling text' }),
    });
    const ask = () => new RequestInput({ interruptId: 'topic', message: 'Topic?' });
    const join = new JoinNode('join');
    const wf = new Workflow({
      name: 'wf',
      edges: [
        [START, [ask, other], join],
        [join, writer],
      ],
    });
    const runner = new InMemoryRunner({ agent: wf });
    await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('go') }));
    await collect(
      runner.run({
        userId: 'u',
        sessionId: 's',
        newMessage: {
          role: 'user',
          parts: [{ functionResponse: { id: 'topic', name: REQUEST_INPUT, response: { result: 'tides' } } }],
        },
      }),
    );
    expect(requests).toHaveLength(1);
    const sent = requests[0] as string;
    expect(sent).toContain('tides');
    expect(sent).not.toContain('adk_request_input');
    // The sibling's output reaches the writer only as part of its input (the join's map).
    expect(JSON.parse(sent)).toEqual([
      { role: 'user', parts: [{ text: 'go' }] },
      { role: 'user', parts: [{ text: JSON.stringify({ other: 'secret sibling text', ask: 'tides' }) }] },
    ]);
  });

  it('a workflow is a node of another workflow; its events are its own and its output flows on', async () => {
    const inner = new Workflow({
      name: 'inner',
      edges: [
        START,
        function addA(_ctx: NodeContext, s: unknown) {
          return `${s}a`;
        },
      ],
    });
    const outer = new Workflow({
      name: 'outer',
      edges: [
        START,
        inner,
        function addB(_ctx: NodeContext, s: unknown) {
          return `${s}b`;
        },
      ],
    });
    const runner = new InMemoryRunner({ agent: outer });
    const events = await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('x') }));
    const innerStep = events.find((e) => e.nodeInfo?.path === 'outer@1/inner@1/addA@1');
    expect(innerStep?.author).toBe('inner');
    expect(innerStep?.output).toBe('xa');
    expect(rootOutput(events, 'outer')).toBe('xab');
    expect(inner.parentAgent).toBe(outer);
  });

  it('an AgentTool runs a workflow and returns its output', async () => {
    const wf = new Workflow({
      name: 'pipeline',
      edges: [
        START,
        function shout(_ctx: NodeContext, s: unknown) {
          return { loud: String(s).toUpperCase() };
        },
      ],
    });
    const model = new ScriptedModel({
      script: [
        functionCallResponse('pipeline', { request: 'hi' }),
        (req) => JSON.stringify(req.contents.at(-1)?.parts[0]?.functionResponse?.response),
      ],
    });
    const root = new LlmAgent({ name: 'root', model, tools: [new AgentTool({ agent: wf })] });
    const runner = new InMemoryRunner({ agent: root });
    const events = await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('go') }));
    expect(events.at(-1)?.content?.parts[0]?.text).toBe('{"loud":"HI"}');
  });

  it('a workflow is a sub-agent an LlmAgent can transfer to', async () => {
    const wf = new Workflow({
      name: 'flow',
      edges: [
        START,
        function echo(_c: NodeContext, s: unknown) {
          return `echo ${s}`;
        },
      ],
    });
    const model = new ScriptedModel({
      script: [functionCallResponse('transfer_to_agent', { agent_name: 'flow' })],
    });
    const root = new LlmAgent({ name: 'root', model, subAgents: [wf] });
    const runner = new InMemoryRunner({ agent: root });
    const events = await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('hi') }));
    expect(rootOutput(events, 'flow')).toBe('echo hi');
  });

  it('an LlmAgent node that pauses for a tool confirmation resumes inside the workflow, which goes on', async () => {
    const pay = new FunctionTool({
      name: 'pay',
      description: 'pays',
      parameters: z.object({ amount: z.number() }),
      requireConfirmation: true,
      execute: ({ amount }) => ({ paid: amount }),
    });
    const model = new ScriptedModel({ script: [functionCallResponse('pay', { amount: 5 }), 'paid 5'] });
    const cashier = new LlmAgent({ name: 'cashier', model, tools: [pay] });
    let before = 0;
    const prepare = () => {
      before++;
      return 'pay 5';
    };
    const receipt = (_c: NodeContext, s: unknown) => `receipt: ${s}`;
    const wf = new Workflow({ name: 'wf', edges: [START, prepare, cashier, receipt] });
    const runner = new InMemoryRunner({ agent: wf });
    const first = await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('go') }));
    const call = first
      .flatMap((e) => e.content?.parts ?? [])
      .find((p) => p.functionCall?.name === REQUEST_CONFIRMATION);
    expect(call).toBeDefined();
    const second = await collect(
      runner.run({
        userId: 'u',
        sessionId: 's',
        newMessage: {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: call?.functionCall?.id as string,
                name: REQUEST_CONFIRMATION,
                response: { confirmed: true },
              },
            },
          ],
        },
      }),
    );
    expect(before).toBe(1);
    expect(rootOutput(second, 'wf')).toBe('receipt: paid 5');
  });
});

describe('Workflow: the script facade', () => {
  it('runAgent returns a workflow output, and runAgentText its text', async () => {
    const total = (_c: NodeContext, s: unknown) => ({ length: String(s).length });
    const wf = new Workflow({ name: 'count', edges: [START, total] });
    const result = await runAgent(wf, 'four');
    expect(result.output).toEqual({ length: 4 });
    expect(result.text).toBe('{"length":4}');
    const echo = new Workflow({
      name: 'echo',
      edges: [
        START,
        function same(_c: NodeContext, s: unknown) {
          return s;
        },
      ],
    });
    expect(await runAgentText(echo, 'hi')).toBe('hi');
  });
});

describe('Workflow: code written for @google/adk 2.0', () => {
  it('runs with the same names: FunctionNode(name, handler), a BaseNode subclass, JoinNode, node(), isWorkflow', async () => {
    class Doubler extends BaseNode {
      async *runImpl(_ctx: NodeContext, input: unknown) {
        yield Number(input) * 2;
      }
    }
    const parse = new FunctionNode('parse', (_ctx, input) => Number(input));
    const plusOne = node((_ctx: NodeContext, n: unknown) => Number(n) + 1, { name: 'plus_one' });
    const join = new JoinNode({ name: 'join' });
    const sum = new FunctionNode('sum', (_ctx, parts) =>
      Object.values(parts as Record<string, number>).reduce((a, b) => a + b, 0),
    );
    const wf = new Workflow({
      name: 'ported',
      edges: [['START', parse, [new Doubler({ name: 'double' }), plusOne], join, sum]],
    });
    expect(isWorkflow(wf)).toBe(true);
    const result = await runAgent(wf, '5');
    expect(result.output).toBe(16);
  });
});
