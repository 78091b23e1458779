import {
  BaseAgent,
  type Event,
  FunctionTool,
  InMemorySessionService,
  type InvocationContext,
  LlmAgent,
  Runner,
} from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { A2aClient } from '../client/a2a-client.js';
import type { StreamResponse, Task } from '../protocol/types.js';
import { listen } from '../server/node-adapter.js';
import { REQUEST_CREDENTIAL } from './part-conversion.js';
import { toA2a } from './to-a2a.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

async function serve(server: ReturnType<typeof toA2a>) {
  const listening = await listen((r) => server.fetch(r));
  closers.push(async () => {
    await server.close();
    await listening.close();
  });
  return A2aClient.fromUrl(listening.url);
}

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const item of stream) out.push(item);
  return out;
}

const weather = new FunctionTool({
  name: 'get_weather',
  description: 'weather for a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => ({ forecast: `sunny in ${city}` }),
});

const approval = new FunctionTool({
  name: 'ask_manager',
  description: 'asks a human to approve a refund',
  parameters: z.object({ amount: z.number() }),
  isLongRunning: true,
  execute: () => undefined,
});

describe('ADK agent served over A2A', () => {
  it('streams events as working updates, then the final text as an artifact and completes', async () => {
    const model = new ScriptedModel([functionCallResponse('get_weather', { city: 'Paris' }), 'It is sunny.']);
    const sessions = new InMemorySessionService();
    const agent = new LlmAgent({ name: 'forecaster', description: 'Weather', model, tools: [weather] });
    const client = await serve(toA2a(agent, { sessionService: sessions }));
    expect(client.card.name).toBe('forecaster');
    expect(client.card.skills.map((s) => s.id)).toEqual(['forecaster']);

    const items = await collect(client.sendStreamingMessage('Weather in Paris?'));
    const updates = items.flatMap((i) => ('statusUpdate' in i ? [i.statusUpdate] : []));
    const working = updates.filter((u) => u.status.state === 'TASK_STATE_WORKING' && u.status.message);
    // the tool call and the tool response
    expect(working).toHaveLength(2);
    expect(working[0]?.status.message?.parts[0]?.data).toMatchObject({
      name: 'get_weather',
      args: { city: 'Paris' },
    });
    expect(working[0]?.metadata?.adk_author).toBe('forecaster');
    expect(working[1]?.status.message?.parts[0]?.metadata?.adk_type).toBe('function_response');
    const artifacts = items.flatMap((i) => ('artifactUpdate' in i ? [i.artifactUpdate] : []));
    expect(artifacts).toHaveLength(1);
    expect(artifacts[0]?.artifact.parts).toEqual([{ text: 'It is sunny.' }]);
    expect(updates.at(-1)?.status.state).toBe('TASK_STATE_COMPLETED');

    // context id = session id
    const contextId = updates[0]?.contextId as string;
    const session = await sessions.getSession({ appName: 'forecaster', userId: 'a2a', sessionId: contextId });
    expect(session?.events.map((e) => e.author)).toEqual(['user', 'forecaster', 'forecaster', 'forecaster']);
  });

  it('continues the same session for later messages of the same context', async () => {
    const model = new ScriptedModel(['Hello Ada.', 'Your name is Ada.']);
    const server = toA2a(new LlmAgent({ name: 'greeter', model }));
    const client = await serve(server);
    const first = await client.sendMessage('I am Ada');
    const task1 = 'task' in first ? first.task : undefined;
    expect(task1?.status.state).toBe('TASK_STATE_COMPLETED');
    const second = await client.sendMessage({
      messageId: 'm2',
      role: 'ROLE_USER',
      parts: [{ text: 'What is my name?' }],
      contextId: task1?.contextId as string,
    });
    const task2 = 'task' in second ? second.task : undefined;
    expect(task2?.id).not.toBe(task1?.id);
    expect(task2?.artifacts?.[0]?.parts).toEqual([{ text: 'Your name is Ada.' }]);
    // The model saw the first exchange.
    const texts = model.requests[1]?.contents.flatMap((c) => c.parts.map((p) => p.text));
    expect(texts).toEqual(['I am Ada', 'Hello Ada.', 'What is my name?']);
  });

  it('a long-running call answered with an interim result completes the task with the model reply', async () => {
    const ticket = new FunctionTool({
      name: 'open_ticket',
      description: 'opens a refund ticket',
      parameters: z.object({ amount: z.number() }),
      isLongRunning: true,
      execute: () => ({ status: 'pending', ticket: 'T-7' }),
    });
    const model = new ScriptedModel([
      functionCallResponse('open_ticket', { amount: 5 }),
      'Your ticket T-7 was opened.',
    ]);
    const client = await serve(toA2a(new LlmAgent({ name: 'tickets', model, tools: [ticket] })));
    const sent = await client.sendMessage('refund 5');
    const task = 'task' in sent ? sent.task : undefined;
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task?.artifacts?.[0]?.parts).toEqual([{ text: 'Your ticket T-7 was opened.' }]);
  });

  it('pauses a long-running call as input-required and resumes on the function response', async () => {
    const model = new ScriptedModel([
      functionCallResponse('ask_manager', { amount: 100 }),
      'Refund approved.',
    ]);
    const client = await serve(toA2a(new LlmAgent({ name: 'refunds', model, tools: [approval] })));
    const first = await client.sendMessage('refund 100');
    const task = 'task' in first ? first.task : undefined;
    expect(task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const callPart = task?.status.message?.parts.find((p) => p.metadata?.adk_type === 'function_call');
    expect(callPart?.metadata?.adk_is_long_running).toBe(true);
    const call = callPart?.data as { id: string; name: string };
    expect(call.name).toBe('ask_manager');

    const resumed = await client.sendMessage({
      messageId: 'answer',
      role: 'ROLE_USER',
      taskId: task?.id as string,
      parts: [
        {
          data: { id: call.id, name: 'ask_manager', response: { approved: true } },
          metadata: { adk_type: 'function_response' },
        },
      ],
    });
    const done = 'task' in resumed ? resumed.task : undefined;
    expect(done?.id).toBe(task?.id);
    expect(done?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done?.artifacts?.[0]?.parts).toEqual([{ text: 'Refund approved.' }]);
    const answer = model.requests[1]?.contents.at(-1)?.parts[0]?.functionResponse;
    expect(answer).toEqual({ id: call.id, name: 'ask_manager', response: { approved: true } });
  });

  it('answers a pending call with a plain text reply', async () => {
    const model = new ScriptedModel([functionCallResponse('ask_manager', { amount: 5 }), 'Done.']);
    const server = toA2a(new LlmAgent({ name: 'refunds', model, tools: [approval] }));
    const first = await server.handler.sendMessage({
      message: { messageId: 'a', role: 'ROLE_USER', parts: [{ text: 'refund 5' }] },
    });
    const task = 'task' in first ? first.task : undefined;
    const second = await server.handler.sendMessage({
      message: {
        messageId: 'b',
        role: 'ROLE_USER',
        taskId: task?.id as string,
        parts: [{ text: 'approved' }],
      },
    });
    expect('task' in second && second.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(model.requests[1]?.contents.at(-1)?.parts[0]?.functionResponse?.response).toEqual({
      result: 'approved',
    });
    await server.close();
  });

  it('maps a credential request to auth-required', async () => {
    class NeedsLogin extends BaseAgent {
      protected async *runImpl(ctx: InvocationContext): AsyncGenerator<Event> {
        yield this.makeEvent(ctx, {
          content: {
            role: 'model',
            parts: [{ functionCall: { id: 'cred-1', name: REQUEST_CREDENTIAL, args: { scheme: 'oauth2' } } }],
          },
          longRunningToolIds: ['cred-1'],
        });
      }
    }
    const server = toA2a(new NeedsLogin({ name: 'calendar' }));
    const result = await server.handler.sendMessage({
      message: { messageId: 'x', role: 'ROLE_USER', parts: [{ text: 'my meetings' }] },
    });
    const task = 'task' in result ? result.task : undefined;
    expect(task?.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    expect(task?.status.message?.parts[0]?.data).toMatchObject({ id: 'cred-1', name: REQUEST_CREDENTIAL });
    await server.close();
  });

  it('fails the task when the run ends with an error event', async () => {
    const model = new ScriptedModel([new Error('model exploded')]);
    const server = toA2a(new LlmAgent({ name: 'fragile', model }));
    const result = await server.handler.sendMessage({
      message: { messageId: 'x', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
    });
    const task = 'task' in result ? result.task : undefined;
    expect(task?.status.state).toBe('TASK_STATE_FAILED');
    expect(task?.status.message?.parts[0]?.text).toContain('model exploded');
    await server.close();
  });

  it('a guardrail tripwire fails the task with its code and record, never the blocked text', async () => {
    const model = new ScriptedModel(['the launch code is 0000']);
    const agent = new LlmAgent({
      name: 'guarded',
      model,
      outputGuardrails: [
        {
          name: 'codes',
          check: (s) =>
            s.point === 'output' && JSON.stringify(s.content).includes('launch code')
              ? { action: 'tripwire', reason: 'launch codes are secret' }
              : undefined,
        },
      ],
    });
    const server = toA2a(agent);
    const stream = await server.handler.sendStreamingMessage({
      message: { messageId: 'x', role: 'ROLE_USER', parts: [{ text: 'code?' }] },
    });
    const seen: StreamResponse[] = [];
    for await (const item of stream) seen.push(item);
    const failed = seen.flatMap((i) => ('statusUpdate' in i ? [i.statusUpdate] : [])).at(-1);
    expect(failed?.status.state).toBe('TASK_STATE_FAILED');
    expect(failed?.status.message?.parts[0]?.text).toContain('Guardrail "codes" tripped on output');
    expect(failed?.metadata).toMatchObject({
      adk_error_code: 'GUARDRAIL_TRIPPED',
      adk_guardrails: [
        { guardrail: 'codes', point: 'output', action: 'tripwire', reason: 'launch codes are secret' },
      ],
    });
    expect(JSON.stringify(seen)).not.toContain('0000');
    await server.close();
  });

  it('cancel aborts the ADK run', async () => {
    let aborted = false;
    class Slow extends BaseAgent {
      protected async *runImpl(ctx: InvocationContext): AsyncGenerator<Event> {
        yield this.makeEvent(ctx, { content: { role: 'model', parts: [{ text: 'step 1' }] } });
        yield this.makeEvent(ctx, { content: { role: 'model', parts: [{ text: 'step 2' }] } });
        await new Promise<void>((resolve) => {
          if (ctx.signal.aborted) {
            aborted = true;
            resolve();
          }
          ctx.signal.addEventListener(
            'abort',
            () => {
              aborted = true;
              resolve();
            },
            { once: true },
          );
        });
      }
    }
    const sessions = new InMemorySessionService();
    const runner = new Runner({
      appName: 'app',
      agent: new Slow({ name: 'slow' }),
      sessionService: sessions,
    });
    const server = toA2a(runner);
    const stream = await server.handler.sendStreamingMessage({
      message: { messageId: 'x', role: 'ROLE_USER', parts: [{ text: 'go' }] },
    });
    let task: Task | undefined;
    const seen: StreamResponse[] = [];
    for await (const item of stream) {
      seen.push(item);
      if ('task' in item) task = item.task;
      if ('statusUpdate' in item && item.statusUpdate.status.message?.parts[0]?.text === 'step 1') {
        const canceled = await server.handler.cancelTask(task?.id as string);
        expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
      }
    }
    expect(aborted).toBe(true);
    const last = seen.at(-1);
    expect(last && 'statusUpdate' in last ? last.statusUpdate.status.state : undefined).toBe(
      'TASK_STATE_CANCELED',
    );
    await server.close();
  });

  it('uses the authenticated caller as the ADK user', async () => {
    const sessions = new InMemorySessionService();
    const server = toA2a(new LlmAgent({ name: 'echo', model: new ScriptedModel(['hi']) }), {
      sessionService: sessions,
    });
    const result = await server.handler.sendMessage(
      { message: { messageId: 'x', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
      { caller: { id: 'alice' } },
    );
    const contextId = 'task' in result ? result.task.contextId : '';
    expect(
      await sessions.getSession({ appName: 'echo', userId: 'alice', sessionId: contextId }),
    ).toBeDefined();
    await server.close();
  });
});
