import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Content,
  type Event,
  InMemoryRunner,
  JoinNode,
  type NodeContext,
  node,
  REQUEST_INPUT,
  RequestInput,
  START,
  userContent,
  Workflow,
} from '../index.js';

async function collect(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

function questions(events: Event[]) {
  return events.flatMap((e) =>
    (e.content?.parts ?? []).filter((p) => p.functionCall?.name === REQUEST_INPUT).map((p) => p.functionCall),
  );
}

function reply(answers: Record<string, unknown>): Content {
  return {
    role: 'user',
    parts: Object.entries(answers).map(([id, response]) => ({
      functionResponse: { id, name: REQUEST_INPUT, response: response as Record<string, unknown> },
    })),
  };
}

function finalOutput(events: Event[], name = 'wf'): unknown {
  return events.find((e) => e.nodeInfo?.outputFor?.includes(`${name}@1`))?.output;
}

function setup(wf: Workflow) {
  const runner = new InMemoryRunner({ agent: wf });
  const send = (message: Content) =>
    collect(runner.run({ userId: 'u', sessionId: 's', newMessage: message }));
  return { runner, send };
}

describe('Workflow: human input and resume', () => {
  it('pauses with an adk_request_input call, and the reply becomes the node output (handoff)', async () => {
    let prepared = 0;
    const prepare = (_ctx: NodeContext, input: unknown) => {
      prepared++;
      return `order ${input}`;
    };
    const approve = (_ctx: NodeContext, input: unknown) =>
      new RequestInput({
        interruptId: 'approval',
        message: `Approve ${input}?`,
        payload: { input },
        responseSchema: z.object({ approved: z.boolean() }),
      });
    const ship = (_ctx: NodeContext, decision: unknown) =>
      (decision as { approved: boolean }).approved ? 'shipped' : 'cancelled';
    const wf = new Workflow({ name: 'wf', edges: [START, prepare, approve, ship] });
    const { send } = setup(wf);

    const first = await send(userContent('42'));
    const [call] = questions(first);
    expect(call).toMatchObject({
      id: 'approval',
      name: REQUEST_INPUT,
      args: {
        interruptId: 'approval',
        message: 'Approve order 42?',
        payload: { input: 'order 42' },
        response_schema: { type: 'object', properties: { approved: { type: 'boolean' } } },
      },
    });
    const ask = first.find((e) => questions([e]).length > 0);
    expect(ask?.longRunningToolIds).toEqual(['approval']);
    expect(ask?.author).toBe('wf');
    expect(ask?.nodeInfo?.path).toBe('wf@1/approve@1');
    expect(first.some((e) => e.errorCode)).toBe(false);
    expect(finalOutput(first)).toBeUndefined();

    const second = await send(reply({ approval: { approved: true } }));
    expect(prepared).toBe(1);
    expect(second.every((e) => e.invocationId === first[0]?.invocationId)).toBe(true);
    expect(second.find((e) => e.nodeInfo?.path === 'wf@1/approve@1')?.output).toEqual({ approved: true });
    expect(finalOutput(second)).toBe('shipped');
  });

  it('a rerunOnResume node runs again with its original input and ctx.resumeInputs', async () => {
    const runs: unknown[] = [];
    const review = node(
      (ctx: NodeContext, input: unknown) => {
        runs.push({ input, resume: { ...ctx.resumeInputs } });
        const answer = ctx.resumeInputs.ok;
        if (answer === undefined) return new RequestInput({ interruptId: 'ok', message: 'ok?' });
        return `${input}: ${answer}`;
      },
      { name: 'review', rerunOnResume: true },
    );
    const { send } = setup(new Workflow({ name: 'wf', edges: [START, review] }));
    await send(userContent('draft'));
    const second = await send(reply({ ok: { result: 'yes' } }));
    expect(runs).toEqual([
      { input: 'draft', resume: {} },
      { input: 'draft', resume: { ok: 'yes' } },
    ]);
    expect(finalOutput(second)).toBe('draft: yes');
  });

  it('other branches finish while one waits; partial replies keep the join waiting until all are answered', async () => {
    const ran: string[] = [];
    const ask = (id: string) =>
      node(
        () => {
          ran.push(id);
          return new RequestInput({ interruptId: id, message: `${id}?` });
        },
        { name: id },
      );
    const auto = () => {
      ran.push('auto');
      return 'auto';
    };
    const join = new JoinNode('join');
    const { send } = setup(new Workflow({ name: 'wf', edges: [START, [ask('q1'), ask('q2'), auto], join] }));
    const first = await send(userContent('start'));
    expect(
      questions(first)
        .map((q) => q?.id)
        .sort(),
    ).toEqual(['q1', 'q2']);
    expect(first.some((e) => e.nodeInfo?.path === 'wf@1/auto@1' && e.output === 'auto')).toBe(true);

    const second = await send(reply({ q1: { result: 'one' } }));
    expect(second.some((e) => e.nodeInfo?.path === 'wf@1/q1@1' && e.output === 'one')).toBe(true);
    expect(second.some((e) => e.nodeInfo?.path.startsWith('wf@1/join'))).toBe(false);

    const third = await send(reply({ q2: { result: 'two' } }));
    expect(finalOutput(third)).toEqual({ q1: 'one', q2: 'two', auto: 'auto' });
    expect(ran.sort()).toEqual(['auto', 'q1', 'q2']);
  });

  it('a reply that does not match the schema is a clear error and the question stays open', async () => {
    const ask = () => new RequestInput({ interruptId: 'n', responseSchema: z.object({ n: z.number() }) });
    const double = (_ctx: NodeContext, v: unknown) => (v as { n: number }).n * 2;
    const { send } = setup(new Workflow({ name: 'wf', edges: [START, ask, double] }));
    await send(userContent('go'));
    const wrong = await send(reply({ n: { n: 'three' } }));
    expect(wrong.at(-1)?.errorCode).toBe('WORKFLOW_RESUME');
    expect(wrong.at(-1)?.errorMessage).toMatch(/reply to question "n" does not match its response_schema/);
    const right = await send(reply({ n: { n: 3 } }));
    expect(finalOutput(right)).toBe(6);
  });

  it('a reply to an unknown id, or text mixed with replies, is a clear error', async () => {
    const ask = () => new RequestInput({ interruptId: 'q' });
    const { send } = setup(new Workflow({ name: 'wf', edges: [START, ask] }));
    await send(userContent('go'));
    const unknown = await send(reply({ nope: { result: 1 } }));
    expect(unknown.at(-1)?.errorCode).toBe('WORKFLOW_RESUME');
    expect(unknown.at(-1)?.errorMessage).toBe('No open question has the id "nope"');
    const mixed = await send({ role: 'user', parts: [{ text: 'hi' }, ...reply({ q: { result: 1 } }).parts] });
    expect(mixed.at(-1)?.errorCode).toBe('WORKFLOW_RESUME');
    expect(mixed.at(-1)?.errorMessage).toMatch(/cannot also hold text/);
    const ok = await send(reply({ q: { result: 1 } }));
    expect(finalOutput(ok)).toBe(1);
  });

  it('a loop can ask the same question twice; each reply answers the open one', async () => {
    const ask = () => new RequestInput({ interruptId: 'more', message: 'more?' });
    const check = (ctx: NodeContext, answer: unknown) => {
      const count = (ctx.state.get<number>('count') ?? 0) + 1;
      ctx.state.set('count', count);
      ctx.route = answer === 'yes' ? 'again' : 'stop';
      return count;
    };
    const wf = new Workflow({
      name: 'wf',
      edges: [START, ask, check, { again: ask, stop: node((_c, n) => `asked ${n} times`, { name: 'done' }) }],
    });
    const { send } = setup(wf);
    const first = await send(userContent('go'));
    expect(questions(first)).toHaveLength(1);
    const second = await send(reply({ more: { result: 'yes' } }));
    expect(questions(second)).toHaveLength(1);
    expect(second.find((e) => questions([e]).length > 0)?.nodeInfo?.path).toBe('wf@1/ask@2');
    const third = await send(reply({ more: { result: 'no' } }));
    expect(finalOutput(third)).toBe('asked 2 times');
  });
});

describe('Workflow: ctx.runNode', () => {
  it('runs a child with useAsOutput, and a resumed run does not repeat finished children', async () => {
    const calls: string[] = [];
    const fetchData = (_ctx: NodeContext, input: unknown) => {
      calls.push(`fetch ${input}`);
      return `data ${input}`;
    };
    const confirm = () => new RequestInput({ interruptId: 'c' });
    const parent = node(
      async (ctx: NodeContext, input: unknown) => {
        const a = await ctx.runNode(fetchData, input);
        const answer = await ctx.runNode(confirm);
        await ctx.runNode(fetchData, `${a.output} ${answer.output}`, { useAsOutput: true });
      },
      { name: 'parent', rerunOnResume: true },
    );
    const { send } = setup(new Workflow({ name: 'wf', edges: [START, parent] }));
    const first = await send(userContent('x'));
    expect(questions(first)[0]?.id).toBe('c');
    expect(first.find((e) => questions([e]).length > 0)?.nodeInfo?.path).toBe('wf@1/parent@1/confirm@1');
    const second = await send(reply({ c: { result: 'ok' } }));
    expect(calls).toEqual(['fetch x', 'fetch data x ok']);
    const child = second.find((e) => e.nodeInfo?.path === 'wf@1/parent@1/fetchData@2');
    // The parent is the workflow's terminal node: the child's output stands for both.
    expect(child?.nodeInfo?.outputFor).toEqual(['wf@1/parent@1/fetchData@2', 'wf@1/parent@1', 'wf@1']);
    expect(finalOutput(second)).toBe('data data x ok');
  });
});

describe('Workflow: resuming nested workflows', () => {
  it('a question inside a nested workflow pauses both; the answer resumes the inner one and the outer goes on', async () => {
    const ran: string[] = [];
    const before = (_c: NodeContext, s: unknown) => {
      ran.push('before');
      return `${s}+before`;
    };
    const ask = (_c: NodeContext, s: unknown) => {
      ran.push('ask');
      return new RequestInput({ interruptId: 'inner-q', message: String(s) });
    };
    const inner = new Workflow({
      name: 'inner',
      edges: [START, ask, node((_c, a) => `inner got ${a}`, { name: 'use' })],
    });
    const after = (_c: NodeContext, s: unknown) => `${s}+after`;
    const outer = new Workflow({ name: 'outer', edges: [START, before, inner, after] });
    const { send } = setup(outer);
    const first = await send(userContent('x'));
    expect(first.find((e) => e.longRunningToolIds?.length)?.nodeInfo?.path).toBe('outer@1/inner@1/ask@1');
    expect(first.find((e) => e.longRunningToolIds?.length)?.author).toBe('inner');
    const second = await send(reply({ 'inner-q': { result: 'yes' } }));
    expect(ran).toEqual(['before', 'ask']);
    // The inner workflow's output is its terminal node's event; the inner workflow adds none.
    const innerOutput = second.find((e) => e.nodeInfo?.outputFor?.includes('outer@1/inner@1'));
    expect(innerOutput?.nodeInfo).toEqual({
      path: 'outer@1/inner@1/use@1',
      outputFor: ['outer@1/inner@1/use@1', 'outer@1/inner@1'],
    });
    expect(innerOutput?.output).toBe('inner got yes');
    expect(second.some((e) => e.nodeInfo?.path === 'outer@1/inner@1')).toBe(false);
    expect(finalOutput(second, 'outer')).toBe('inner got yes+after');
  });
});

describe('Workflow: response schemas given as JSON Schema', () => {
  it('checks replies against a JSON Schema object, and accepts any reply when the schema cannot be read', async () => {
    const ask = () =>
      new RequestInput({
        interruptId: 'age',
        responseSchema: {
          type: 'object',
          properties: { age: { type: 'integer', minimum: 0 } },
          required: ['age'],
        },
      });
    const { send } = setup(new Workflow({ name: 'wf', edges: [START, ask] }));
    await send(userContent('go'));
    expect((await send(reply({ age: { age: -1 } }))).at(-1)?.errorCode).toBe('WORKFLOW_RESUME');
    expect(finalOutput(await send(reply({ age: { age: 7 } })))).toEqual({ age: 7 });

    const odd = () => new RequestInput({ interruptId: 'odd', responseSchema: { type: 'no-such-type' } });
    const second = setup(new Workflow({ name: 'wf', edges: [START, odd] }));
    await second.send(userContent('go'));
    expect(finalOutput(await second.send(reply({ odd: { anything: true } })))).toEqual({ anything: true });
  });
});
