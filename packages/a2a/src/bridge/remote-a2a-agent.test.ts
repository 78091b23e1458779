import {
  type Content,
  type Event,
  FunctionTool,
  InMemorySessionService,
  isFinalResponse,
  LlmAgent,
  OTHER_AGENT_CONTEXT_PREAMBLE,
  Runner,
  userContent,
} from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, fail, inputRequired, reply, stream } from '../agent/define-agent.js';
import type { Message } from '../protocol/types.js';
import { createA2aServer } from '../server/a2a-server.js';
import { listen } from '../server/node-adapter.js';
import {
  A2A_INPUT_REQUIRED,
  RemoteA2aAgent,
  type RemoteA2aAgentOptions,
  type RemoteA2aMetadata,
} from './remote-a2a-agent.js';
import { toA2a } from './to-a2a.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

async function serveFetch(server: { fetch(r: Request): Promise<Response>; close(): Promise<void> }) {
  const listening = await listen((r) => server.fetch(r));
  closers.push(async () => {
    await server.close();
    await listening.close();
  });
  return listening.url;
}

function setup(options: Omit<RemoteA2aAgentOptions, 'name'>) {
  const agent = new RemoteA2aAgent({ name: 'remote', description: 'a remote agent', ...options });
  const sessions = new InMemorySessionService();
  const runner = new Runner({ appName: 'app', agent, sessionService: sessions, autoCreateSession: true });
  const run = async (message: Content): Promise<Event[]> => {
    const events: Event[] = [];
    for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: message })) events.push(e);
    return events.filter((e) => e.author !== 'user');
  };
  return { agent, run, runner };
}

const metaOf = (e: Event | undefined) => (e?.customMetadata?.a2a ?? {}) as RemoteA2aMetadata;
const textOf = (e: Event | undefined) => e?.content?.parts.map((p) => p.text ?? '').join('') ?? '';

describe('RemoteA2aAgent', () => {
  it('forwards the new events and maps the remote artifact to the answer, keeping the context', async () => {
    const received: Message[] = [];
    const remote = defineAgent({
      name: 'echo',
      description: 'echoes',
      handleMessage(message) {
        received.push(message);
        return reply(`echo: ${message.parts.map((p) => p.text).join('|')}`);
      },
    });
    const { run } = setup({ url: await serveFetch(remote.server()) });

    const first = await run(userContent('hello'));
    expect(first).toHaveLength(1);
    expect(textOf(first[0])).toBe('echo: hello');
    expect(isFinalResponse(first[0] as Event)).toBe(true);
    const meta = metaOf(first[0]);
    expect(meta.state).toBe('TASK_STATE_COMPLETED');

    const second = await run(userContent('again'));
    expect(textOf(second[0])).toBe('echo: again');
    // only the events since the last reply were sent, in the same context
    expect(received[1]?.parts).toEqual([{ text: 'again' }]);
    expect(received[1]?.contextId).toBe(meta.contextId);
    expect(received[1]?.taskId).not.toBe(meta.taskId);
  });

  it('pauses on remote input-required and continues the same task with the function response', async () => {
    const received: Message[] = [];
    const remote = defineAgent({
      name: 'booking',
      description: 'books',
      handleMessage(message, ctx) {
        received.push(message);
        if (!ctx.task) return inputRequired('Where to?');
        return reply(`Booked ${message.parts[0]?.text}`);
      },
    });
    const { run } = setup({ url: await serveFetch(remote.server()), streaming: false });

    const paused = await run(userContent('book a flight'));
    expect(paused).toHaveLength(1);
    const call = paused[0]?.content?.parts.find((p) => p.functionCall)?.functionCall;
    expect(call?.name).toBe(A2A_INPUT_REQUIRED);
    expect(call?.args).toMatchObject({ message: 'Where to?' });
    expect(paused[0]?.longRunningToolIds).toEqual([call?.id]);
    expect(textOf(paused[0])).toBe('Where to?');

    const done = await run({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: call?.id as string,
            name: A2A_INPUT_REQUIRED,
            response: { result: 'Paris' },
          },
        },
      ],
    });
    expect(textOf(done.at(-1))).toBe('Booked Paris');
    expect(received[1]?.taskId).toBe(metaOf(paused[0]).taskId);
    expect(received[1]?.parts).toEqual([{ text: 'Paris' }]);
  });

  it('continues an input-required task with a plain next message too', async () => {
    const remote = defineAgent({
      name: 'booking',
      description: 'books',
      handleMessage(message, ctx) {
        if (!ctx.task) return inputRequired('Where to?');
        return reply(`Booked ${message.parts[0]?.text} on task ${ctx.task.id}`);
      },
    });
    const { run } = setup({ url: await serveFetch(remote.server()) });
    const paused = await run(userContent('book'));
    const taskId = metaOf(paused[0]).taskId;
    const done = await run(userContent('Rome'));
    expect(textOf(done.at(-1))).toBe(`Booked Rome on task ${taskId}`);
  });

  it('leaves rewound turns out: a rewound input-required task is not continued', async () => {
    const received: Message[] = [];
    const remote = defineAgent({
      name: 'booking',
      description: 'books',
      handleMessage(message, ctx) {
        received.push(message);
        if (message.parts[0]?.text === 'book') return inputRequired('Where to?');
        return reply(`${ctx.task ? 'continued' : 'new'}: ${message.parts.map((p) => p.text).join('|')}`);
      },
    });
    const { run, runner } = setup({ url: await serveFetch(remote.server()) });
    await run(userContent('hello'));
    const paused = await run(userContent('book'));
    expect(metaOf(paused[0]).state).toBe('TASK_STATE_INPUT_REQUIRED');
    await runner.rewind({
      userId: 'u',
      sessionId: 's',
      rewindBeforeInvocationId: paused[0]?.invocationId ?? '',
    });
    const after = await run(userContent('Rome'));
    expect(textOf(after.at(-1))).toBe('new: Rome');
    expect(received.at(-1)?.taskId).not.toBe(metaOf(paused[0]).taskId);
    expect(received.at(-1)?.parts).toEqual([{ text: 'Rome' }]);
  });

  it('assembles streamed artifact chunks and shows progress as thought', async () => {
    const remote = defineAgent({
      name: 'streamer',
      description: 'streams',
      handleMessage: () =>
        stream(
          (async function* () {
            yield 'one ';
            yield 'two';
          })(),
        ),
    });
    const { run } = setup({ url: await serveFetch(remote.server()) });
    const events = await run(userContent('go'));
    expect(events).toHaveLength(1);
    expect(events[0]?.content?.parts).toEqual([{ text: 'one ' }, { text: 'two' }]);
  });

  it('shows remote progress as thought text, never as the answer', async () => {
    const server = createA2aServer({
      card: { name: 'worker', description: 'works' },
      executor: {
        async *execute() {
          yield { kind: 'status', state: 'TASK_STATE_WORKING', parts: [{ text: 'thinking' }] };
          yield { kind: 'artifact', artifact: { artifactId: 'a', parts: [{ text: 'result' }] } };
        },
      },
    });
    const { run } = setup({ url: await serveFetch(server) });
    const events = await run(userContent('go'));
    expect(events.map((e) => e.content?.parts)).toEqual([
      [{ text: 'thinking', thought: true }],
      [{ text: 'result' }],
    ]);
  });

  it('turns a failed remote task into an error event', async () => {
    const remote = defineAgent({
      name: 'broken',
      description: 'fails',
      handleMessage: () => fail('no luck'),
    });
    const { run } = setup({ url: await serveFetch(remote.server()) });
    const events = await run(userContent('hi'));
    expect(events.at(-1)?.errorCode).toBe('A2A_TASK_FAILED');
    expect(events.at(-1)?.errorMessage).toBe('no luck');
  });

  it('reports an unreachable remote as an error event', async () => {
    const listening = await listen(async () => new Response('nope', { status: 500 }));
    await listening.close();
    const { run } = setup({ url: listening.url, clientOptions: { retry: false } });
    const events = await run(userContent('hi'));
    expect(events.at(-1)?.errorMessage).toMatch(/Remote agent remote failed/);
  });

  it('round-trips an ADK long-running call through A2A both ways', async () => {
    const approval = new FunctionTool({
      name: 'ask_manager',
      description: 'asks a human',
      parameters: z.object({ amount: z.number() }),
      isLongRunning: true,
      execute: () => undefined,
    });
    const model = new ScriptedModel([functionCallResponse('ask_manager', { amount: 40 }), 'Refunded 40.']);
    const url = await serveFetch(toA2a(new LlmAgent({ name: 'refunds', model, tools: [approval] })));
    const { run } = setup({ url });

    const paused = await run(userContent('refund 40'));
    const call = paused.at(-1)?.content?.parts.find((p) => p.functionCall)?.functionCall;
    // the remote agent's own call, with its id, is what the local flow waits on
    expect(call?.name).toBe('ask_manager');
    expect(paused.at(-1)?.longRunningToolIds).toEqual([call?.id]);

    const done = await run({
      role: 'user',
      parts: [{ functionResponse: { id: call?.id as string, name: 'ask_manager', response: { ok: true } } }],
    });
    expect(textOf(done.at(-1))).toBe('Refunded 40.');
    expect(model.requests[1]?.contents.at(-1)?.parts[0]?.functionResponse).toEqual({
      id: call?.id,
      name: 'ask_manager',
      response: { ok: true },
    });
  });

  it('works as a sub-agent an LlmAgent transfers to, with other agents’ words as context', async () => {
    const received: Message[] = [];
    const remote = defineAgent({
      name: 'helper',
      description: 'helps',
      handleMessage(message) {
        received.push(message);
        return reply('remote answer');
      },
    });
    const url = await serveFetch(remote.server());
    const sub = new RemoteA2aAgent({ name: 'remote', description: 'remote helper', url });
    const rootModel = new ScriptedModel([
      {
        content: {
          role: 'model',
          parts: [
            { text: 'Asking the specialist.' },
            { functionCall: { id: 't1', name: 'transfer_to_agent', args: { agent_name: 'remote' } } },
          ],
        },
      },
    ]);
    const root = new LlmAgent({ name: 'root', model: rootModel, subAgents: [sub] });
    const runner = new Runner({
      appName: 'app',
      agent: root,
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    const events: Event[] = [];
    for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('question') }))
      events.push(e);
    expect(textOf(events.at(-1))).toBe('remote answer');
    expect(events.at(-1)?.author).toBe('remote');
    // The root agent's turn (its words, its transfer call and that call's result) arrives as ADK
    // presents another agent's turn to a model: the preamble, then each piece quoted as data.
    const quoted = (text: string) =>
      `<<<BEGIN_QUOTED_AGENT_CONTENT>>>\n${text}\n<<<END_QUOTED_AGENT_CONTENT>>>`;
    expect(received[0]?.parts).toEqual([
      { text: 'question' },
      { text: OTHER_AGENT_CONTEXT_PREAMBLE },
      { text: `[root] said:\n${quoted('Asking the specialist.')}` },
      {
        text: `[root] called tool \`transfer_to_agent\` with parameters:\n${quoted("{'agent_name': 'remote'}")}`,
      },
      { text: OTHER_AGENT_CONTEXT_PREAMBLE },
      { text: `[root] \`transfer_to_agent\` tool returned result:\n${quoted("{'result': None}")}` },
    ]);
  });
});
