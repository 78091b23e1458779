import { describe, expect, it } from 'vitest';
import {
  type Event,
  InMemoryRunner,
  LlmAgent,
  type NodeContext,
  runAgent,
  START,
  userContent,
  Workflow,
} from '../index.js';
import { ScriptedModel } from '../testing/index.js';

async function run(agent: Workflow, text = 'go') {
  const runner = new InMemoryRunner({ agent });
  const events: Event[] = [];
  for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent(text) }))
    events.push(e);
  return events;
}

/** Events that carry an output, with the node runs each stands for. */
const outputEvents = (events: Event[]) =>
  events
    .filter((e) => e.output !== undefined || e.nodeInfo?.messageAsOutput)
    .map((e) => e.nodeInfo?.outputFor);

describe("a graph workflow's output is its terminal node's event (ADK 2.x)", () => {
  it('a chain: the last node stands for the workflow, which adds no output event', async () => {
    const a = (_c: NodeContext, s: unknown) => `${s}+a`;
    const b = (_c: NodeContext, s: unknown) => `${s}+b`;
    const events = await run(new Workflow({ name: 'wf', edges: [START, a, b] }));
    expect(outputEvents(events)).toEqual([['wf@1/a@1'], ['wf@1/b@1', 'wf@1']]);
    expect(events.find((e) => e.nodeInfo?.path === 'wf@1/b@1')?.output).toBe('go+a+b');
    expect(events.some((e) => e.nodeInfo?.path === 'wf@1')).toBe(false);
  });

  it('a loop through a routed back-edge: the last run of the exit node is the one terminal output', async () => {
    const draft = (_c: NodeContext, n: unknown) => (typeof n === 'number' ? n : 0) + 1;
    const review = (ctx: NodeContext, n: unknown) => {
      ctx.route = Number(n) < 3 ? 'again' : 'done';
      return n;
    };
    const publish = (_c: NodeContext, n: unknown) => `published ${n}`;
    const events = await run(
      new Workflow({ name: 'wf', edges: [START, draft, review, { again: draft, done: publish }] }),
    );
    const terminal = events.filter((e) => e.nodeInfo?.outputFor?.includes('wf@1'));
    expect(terminal.map((e) => [e.nodeInfo?.outputFor, e.output])).toEqual([
      [['wf@1/publish@1', 'wf@1'], 'published 3'],
    ]);
  });

  it('nested workflows: the inner terminal node stands for the inner and the outer workflow', async () => {
    const shout = (_c: NodeContext, s: unknown) => `${s}!`;
    const wrap = (_c: NodeContext, s: unknown) => `<${s}>`;
    const inner = new Workflow({ name: 'inner', edges: [START, shout] });
    const outer = new Workflow({ name: 'outer', edges: [START, wrap, inner] });
    const events = await run(outer);
    const carrying = events.filter((e) => e.output !== undefined);
    expect(carrying.map((e) => [e.nodeInfo?.path, e.nodeInfo?.outputFor, e.output])).toEqual([
      ['outer@1/wrap@1', ['outer@1/wrap@1'], '<go>'],
      ['outer@1/inner@1/shout@1', ['outer@1/inner@1/shout@1', 'outer@1/inner@1', 'outer@1'], '<go>!'],
    ]);
  });

  it("an LlmAgent as the terminal node: its reply is the workflow's output, once", async () => {
    const writer = new LlmAgent({ name: 'writer', model: new ScriptedModel(['the draft']) });
    const wf = new Workflow({ name: 'wf', edges: [START, writer] });
    const result = await runAgent(wf, 'write');
    expect(result.output).toBe('the draft');
    const reply = result.events.filter((e) => e.nodeInfo?.outputFor?.includes('wf@1'));
    expect(reply).toHaveLength(1);
    expect(reply[0]?.nodeInfo?.outputFor).toEqual(['wf@1/writer@1', 'wf@1']);
  });
});
