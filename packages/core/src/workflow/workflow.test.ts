import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  agentOfNode,
  type BaseNode,
  DEFAULT_ROUTE,
  type Event,
  FunctionTool,
  InMemoryRunner,
  JoinNode,
  LlmAgent,
  type NodeContext,
  node,
  START,
  userContent,
  Workflow,
  WorkflowValidationError,
} from '../index.js';
import { ScriptedModel } from '../testing/index.js';

async function run(agent: Workflow, text = 'hello', sessionId = 's1') {
  const runner = new InMemoryRunner({ agent });
  const events: Event[] = [];
  for await (const e of runner.run({ userId: 'u', sessionId, newMessage: userContent(text) })) events.push(e);
  return { runner, events };
}

/**
 * The node outputs in the order they were recorded, by node path: an event's output counts for
 * every path it lists (a terminal node's for its workflow too).
 */
function outputs(events: Event[]): [string, unknown][] {
  return events
    .filter((e) => e.nodeInfo?.outputFor?.includes(e.nodeInfo.path))
    .flatMap((e) => (e.nodeInfo?.outputFor ?? []).map((path): [string, unknown] => [path, e.output]));
}

function workflowOutput(events: Event[], name: string): unknown {
  return events.find((e) => e.nodeInfo?.outputFor?.includes(`${name}@1`))?.output;
}

describe('Workflow: chains', () => {
  it('passes each output to the next node, starting from the user message text, and ends with the terminal output', async () => {
    const upper = (_ctx: NodeContext, input: unknown) => String(input).toUpperCase();
    const exclaim = async (_ctx: NodeContext, input: unknown) => `${input}!`;
    async function* wrap(_ctx: NodeContext, input: unknown) {
      yield `[${input}]`;
    }
    const wf = new Workflow({ name: 'wf', edges: [START, upper, exclaim, wrap] });
    const { events } = await run(wf);
    expect(outputs(events)).toEqual([
      ['wf@1/upper@1', 'HELLO'],
      ['wf@1/exclaim@1', 'HELLO!'],
      ['wf@1/wrap@1', '[HELLO!]'],
      ['wf@1', '[HELLO!]'],
    ]);
    // Function nodes' events are the enclosing workflow's.
    expect(events.filter((e) => e.author !== 'user').every((e) => e.author === 'wf')).toBe(true);
  });

  it("accepts the string 'START' and a list of chains, and writes state through ctx.state on the node's event", async () => {
    const first = (ctx: NodeContext) => {
      ctx.state.set('seen', 1);
      return 1;
    };
    const second = (ctx: NodeContext, input: unknown) => (ctx.state.get<number>('seen') ?? 0) + Number(input);
    const wf = new Workflow({
      name: 'wf',
      edges: [
        ['START', first],
        [first, second],
      ],
    });
    const { events, runner } = await run(wf);
    expect(workflowOutput(events, 'wf')).toBe(2);
    const firstEvent = events.find((e) => e.nodeInfo?.path === 'wf@1/first@1');
    expect(firstEvent?.actions.stateDelta).toEqual({ seen: 1 });
    const session = await runner.sessionService.getSession({ appName: 'wf', userId: 'u', sessionId: 's1' });
    expect(session?.state.seen).toBe(1);
  });

  it('runs an LlmAgent node with the previous output as its input and uses its reply as output', async () => {
    const model = new ScriptedModel({
      respond: (req) => `summary of: ${req.contents.at(-1)?.parts[0]?.text}`,
    });
    const summarizer = new LlmAgent({ name: 'summarizer', model });
    const prepare = () => 'the facts';
    const shout = (_ctx: NodeContext, input: unknown) => String(input).toUpperCase();
    const wf = new Workflow({ name: 'wf', edges: [START, prepare, summarizer, shout] });
    const { events } = await run(wf);
    const reply = events.find((e) => e.author === 'summarizer' && e.output !== undefined);
    expect(reply?.output).toBe('summary of: the facts');
    expect(reply?.nodeInfo).toEqual({
      path: 'wf@1/summarizer@1',
      messageAsOutput: true,
      outputFor: ['wf@1/summarizer@1'],
    });
    expect(workflowOutput(events, 'wf')).toBe('SUMMARY OF: THE FACTS');
  });

  it('runs a tool as a node with its input object as arguments', async () => {
    const add = new FunctionTool({
      name: 'add',
      description: 'adds',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => ({ sum: a + b }),
    });
    const args = () => ({ a: 2, b: 3 });
    const wf = new Workflow({ name: 'wf', edges: [START, args, add] });
    const { events } = await run(wf);
    expect(workflowOutput(events, 'wf')).toEqual({ sum: 5 });
  });
});

describe('Workflow: fan-out and fan-in', () => {
  it('runs a group concurrently and a JoinNode gets { predecessor: output } once all are done', async () => {
    const order: string[] = [];
    const slow = async () => {
      await new Promise((r) => setTimeout(r, 20));
      order.push('slow');
      return 'S';
    };
    const fast = () => {
      order.push('fast');
      return 'F';
    };
    const join = new JoinNode({ name: 'join' });
    const combine = (_ctx: NodeContext, input: unknown) => input;
    const wf = new Workflow({ name: 'wf', edges: [START, [slow, fast], join, combine] });
    const { events } = await run(wf);
    expect(order).toEqual(['fast', 'slow']);
    expect(workflowOutput(events, 'wf')).toEqual({ slow: 'S', fast: 'F' });
  });

  it('a plain node after a group runs once per branch, with run ids 1..N', async () => {
    const a = () => 'a';
    const b = () => 'b';
    const seen: string[] = [];
    const after = (ctx: NodeContext, input: unknown) => {
      seen.push(`${ctx.runId}:${input}`);
    };
    const wf = new Workflow({ name: 'wf', edges: [START, [a, b], after] });
    const { events } = await run(wf);
    expect(seen.sort()).toEqual(['1:a', '2:b']);
    expect(outputs(events).map(([p]) => p)).toContain('wf@1/after@2');
  });

  it('maxConcurrency bounds how many nodes run at once', async () => {
    let running = 0;
    let peak = 0;
    const make = (name: string) =>
      node(
        async () => {
          running++;
          peak = Math.max(peak, running);
          await new Promise((r) => setTimeout(r, 10));
          running--;
          return name;
        },
        { name },
      );
    const wf = new Workflow({
      name: 'wf',
      maxConcurrency: 2,
      edges: [START, [make('a'), make('b'), make('c'), make('d')], new JoinNode('join')],
    });
    const { events } = await run(wf);
    expect(peak).toBe(2);
    expect(workflowOutput(events, 'wf')).toEqual({ a: 'a', b: 'b', c: 'c', d: 'd' });
  });

  it('parallelWorker runs a node per item, concurrently, with results in input order', async () => {
    const items = () => [30, 10, 20];
    const wait = node(
      async (_ctx: NodeContext, ms: unknown) => {
        await new Promise((r) => setTimeout(r, Number(ms)));
        return Number(ms) * 2;
      },
      { name: 'wait', parallelWorker: true, maxParallelWorkers: 3 },
    );
    const wf = new Workflow({ name: 'wf', edges: [START, items, wait] });
    const { events } = await run(wf);
    expect(workflowOutput(events, 'wf')).toEqual([60, 20, 40]);
    expect(events.some((e) => e.nodeInfo?.path === 'wf@1/wait@1/wait@3')).toBe(true);
  });
});

describe('Workflow: routes', () => {
  const classify = (ctx: NodeContext, input: unknown) => {
    const text = String(input);
    ctx.route = text.startsWith('both')
      ? ['question', 'statement']
      : text.endsWith('?')
        ? 'question'
        : text === 'other'
          ? 'other'
          : 'nothing';
    return text;
  };
  const answer = (_ctx: NodeContext, input: unknown) => `answer to ${input}`;
  const comment = (_ctx: NodeContext, input: unknown) => `comment on ${input}`;
  const fallback = (_ctx: NodeContext, input: unknown) => `fallback for ${input}`;

  it('fires the edge whose route matches the value', async () => {
    const wf = new Workflow({
      name: 'wf',
      edges: [START, classify, { question: answer, statement: comment }],
    });
    const { events } = await run(wf, 'why?');
    expect(workflowOutput(events, 'wf')).toBe('answer to why?');
    expect(events.find((e) => e.nodeInfo?.path === 'wf@1/classify@1')?.actions.route).toBe('question');
  });

  it('fires every edge of a list of routes', async () => {
    const j = new JoinNode('j');
    const wf = new Workflow({
      name: 'wf',
      edges: [
        [START, classify, { question: answer, statement: comment }],
        [answer, j],
        [comment, j],
      ],
    });
    const { events } = await run(wf, 'both');
    expect(workflowOutput(events, 'wf')).toEqual({ answer: 'answer to both', comment: 'comment on both' });
  });

  it('takes the default route only when nothing else matched', async () => {
    const wf = new Workflow({
      name: 'wf',
      edges: [START, classify, { question: answer, [DEFAULT_ROUTE]: fallback }],
    });
    expect(workflowOutput((await run(wf, 'ok')).events, 'wf')).toBe('fallback for ok');
    expect(workflowOutput((await run(wf, 'ok?', 's2')).events, 'wf')).toBe('answer to ok?');
  });

  it('stops the branch when no route matches and there is no default', async () => {
    const wf = new Workflow({ name: 'wf', edges: [START, classify, { question: answer }] });
    const { events } = await run(wf, 'plain');
    expect(events.some((e) => e.nodeInfo?.path.includes('answer'))).toBe(false);
    expect(events.some((e) => e.errorCode)).toBe(false);
  });

  it('a routed back-edge makes a loop; each pass is a new run id', async () => {
    const draft = (_ctx: NodeContext, input: unknown) => {
      const n = typeof input === 'number' ? input : 0;
      return n + 1;
    };
    const review = (ctx: NodeContext, input: unknown) => {
      ctx.route = Number(input) < 3 ? 'again' : 'done';
      return input;
    };
    const publish = (_ctx: NodeContext, input: unknown) => `published ${input}`;
    const wf = new Workflow({ name: 'wf', edges: [START, draft, review, { again: draft, done: publish }] });
    const { events } = await run(wf);
    expect(outputs(events).map(([p]) => p)).toEqual([
      'wf@1/draft@1',
      'wf@1/review@1',
      'wf@1/draft@2',
      'wf@1/review@2',
      'wf@1/draft@3',
      'wf@1/review@3',
      'wf@1/publish@1',
      'wf@1',
    ]);
    expect(workflowOutput(events, 'wf')).toBe('published 3');
  });

  it('two terminal outputs are an error event, not a crash', async () => {
    const a = () => 'a';
    const b = () => 'b';
    const wf = new Workflow({ name: 'wf', edges: [START, [a, b]] });
    const { events } = await run(wf);
    const last = events.at(-1);
    expect(last?.errorCode).toBe('WORKFLOW_OUTPUT');
    expect(last?.errorMessage).toMatch(/2 terminal outputs/);
  });

  it('a node giving two outputs in one run is an error', async () => {
    async function* twice() {
      yield 1;
      yield 2;
    }
    const wf = new Workflow({ name: 'wf', edges: [START, twice] });
    const { events } = await run(wf);
    expect(events.at(-1)?.errorCode).toBe('WORKFLOW_OUTPUT');
  });
});

describe('Workflow: validation at construction', () => {
  const a = () => 1;
  const b = () => 2;
  const c = () => 3;
  const cases: [string, () => unknown, string][] = [
    [
      'duplicate names',
      () => new Workflow({ name: 'wf', edges: [START, node(a, { name: 'x' }), node(b, { name: 'x' })] }),
      'duplicate-name',
    ],
    [
      'unreachable node',
      () =>
        new Workflow({
          name: 'wf',
          edges: [
            [START, a],
            [b, c],
          ],
        }),
      'unreachable-node',
    ],
    ['no START', () => new Workflow({ name: 'wf', edges: [a, b] }), 'unreachable-node'],
    [
      'edge into START',
      () =>
        new Workflow({
          name: 'wf',
          edges: [
            [START, a],
            [a, START],
          ],
        }),
      'edge-into-start',
    ],
    [
      'routed edge from START',
      () => new Workflow({ name: 'wf', edges: [START, { x: a }] }),
      'routed-edge-from-start',
    ],
    [
      'duplicate edge',
      () =>
        new Workflow({
          name: 'wf',
          edges: [
            [START, a, b],
            [a, b],
          ],
        }),
      'duplicate-edge',
    ],
    [
      'two default routes',
      () =>
        new Workflow({
          name: 'wf',
          edges: [
            [START, a, { [DEFAULT_ROUTE]: b }],
            [a, { [DEFAULT_ROUTE]: c }],
          ],
        }),
      'multiple-default-routes',
    ],
    [
      'unrouted cycle',
      () =>
        new Workflow({
          name: 'wf',
          edges: [
            [START, a, b, c],
            [c, b],
          ],
        }),
      'unconditional-cycle',
    ],
    ['empty routing map', () => new Workflow({ name: 'wf', edges: [START, a, {}] }), 'empty-routing-map'],
    [
      'a bad maxConcurrency',
      () => new Workflow({ name: 'wf', maxConcurrency: 0, edges: [START, a] }),
      'invalid-option',
    ],
  ];
  for (const [what, build, problem] of cases) {
    it(`rejects ${what}`, () => {
      let error: unknown;
      try {
        build();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(WorkflowValidationError);
      expect((error as WorkflowValidationError).problem).toBe(problem);
      expect((error as WorkflowValidationError).code).toBe('WORKFLOW_VALIDATION');
    });
  }

  it('a rejected workflow does not adopt its agents, so they can be used again', () => {
    const agent = new LlmAgent({ name: 'helper', model: new ScriptedModel({ respond: () => 'x' }) });
    expect(() => new Workflow({ name: 'bad', maxConcurrency: -1, edges: [START, agent] })).toThrow(
      WorkflowValidationError,
    );
    expect(() => new Workflow({ name: 'bad', edges: [START, agent, {}] })).toThrow(WorkflowValidationError);
    expect(new Workflow({ name: 'good', edges: [START, agent] }).subAgents).toEqual([agent]);
  });

  it('accepts a routed cycle', () => {
    expect(
      () => new Workflow({ name: 'wf', edges: [[START, a, b, { again: a, [DEFAULT_ROUTE]: c }]] }),
    ).not.toThrow();
  });
});

describe('Workflow: the graph it exposes', () => {
  it('lists nodes and edges with routes, defaults, joins and the agents behind nodes', () => {
    const writer = new LlmAgent({ name: 'writer', model: new ScriptedModel({ respond: () => 'x' }) });
    const check = (ctx: NodeContext) => {
      ctx.route = 'ok';
    };
    const fix = () => 1;
    const join = new JoinNode('join');
    const wf = new Workflow({
      name: 'wf',
      edges: [
        [START, [writer, check], join],
        [check, { ok: fix, [DEFAULT_ROUTE]: writer }],
      ],
    });
    expect([...wf.graph.nodes.keys()]).toEqual(['writer', 'check', 'join', 'fix']);
    expect(wf.graph.edges.map((e) => [e.from.name, e.to.name, e.routes, e.isDefault])).toEqual([
      ['__START__', 'writer', null, false],
      ['__START__', 'check', null, false],
      ['writer', 'join', null, false],
      ['check', 'join', null, false],
      ['check', 'fix', ['ok'], false],
      ['check', 'writer', null, true],
    ]);
    expect(wf.graph.nodes.get('join')?.requiresAllPredecessors).toBe(true);
    expect(agentOfNode(wf.graph.nodes.get('writer') as BaseNode)).toBe(writer);
    expect(wf.graph.isTerminal('join')).toBe(true);
    expect(writer.parentAgent).toBe(wf);
  });
});
