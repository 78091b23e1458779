import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FunctionTool, LlmAgent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { harness } from './__fixtures__/harness.js';
import { DebugLoggingPlugin, type DebugRecord } from './debug-logging.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'adk-debug-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function records(path: string): Promise<DebugRecord[]> {
  const text = await readFile(path, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as DebugRecord);
}

describe('DebugLoggingPlugin', () => {
  it('writes complete requests, responses, events and the final state of each invocation as JSON Lines', async () => {
    const path = join(dir, 'logs', 'debug.jsonl');
    const remember = new FunctionTool({
      name: 'remember',
      description: 'stores a fact',
      parameters: z.object({ fact: z.string() }),
      execute: ({ fact }, context) => {
        context.state.set('fact', fact);
        return { stored: true };
      },
    });
    const model = new ScriptedModel([
      functionCallResponse('remember', { fact: 'sky is blue' }),
      'Noted.',
      'It is blue.',
    ]);
    const plugin = new DebugLoggingPlugin({ path, now: () => 42 });
    const h = harness(
      new LlmAgent({ name: 'memo', model, instruction: 'Remember facts.', tools: [remember] }),
      [plugin],
    );
    const first = await h.send('remember: sky is blue');
    const second = await h.send('what colour is the sky?');

    const all = await records(path);
    const firstId = first[0]?.invocationId;
    const secondId = second[0]?.invocationId;
    const of = (id: string | undefined) => all.filter((r) => r.invocationId === id).map((r) => r.type);
    expect(of(firstId)).toEqual([
      'user_message',
      'event',
      'run_start',
      'model_request',
      'model_response',
      'event',
      'tool_call',
      'tool_result',
      'event',
      'model_request',
      'model_response',
      'event',
      'final_state',
    ]);
    expect(of(secondId)).toEqual([
      'user_message',
      'event',
      'run_start',
      'model_request',
      'model_response',
      'event',
      'final_state',
    ]);
    for (const r of all) {
      expect(r).toMatchObject({ timestamp: 42, appName: 'app', userId: 'u', sessionId: 's' });
    }

    // The complete request, as the model received it but for the agent-name label, which the flow
    // adds after the before-model hooks (as ADK does).
    const requests = all.filter((r) => r.type === 'model_request');
    const received = JSON.parse(JSON.stringify(model.requests)) as { config: { labels?: unknown } }[];
    for (const r of received) {
      expect(r.config.labels).toEqual({ adk_agent_name: 'memo' });
      delete r.config.labels;
    }
    expect(requests.map((r) => r.request)).toEqual(received);
    expect(requests[0]).toMatchObject({ agent: 'memo' });
    expect(JSON.stringify(requests[0]?.request)).toContain('Remember facts.');

    const events = all.filter((r) => r.type === 'event').map((r) => r.event);
    const stored = (await h.session())?.events;
    expect(events).toEqual(JSON.parse(JSON.stringify(stored)));

    const finals = all.filter((r) => r.type === 'final_state');
    expect(finals[0]?.state).toEqual({ fact: 'sky is blue' });
    expect(finals[1]).toMatchObject({ state: { fact: 'sky is blue' }, eventCount: 6 });
    expect(all.find((r) => r.type === 'tool_call')).toMatchObject({
      tool: 'remember',
      args: { fact: 'sky is blue' },
    });
  });

  it('keeps records whole and in order when invocations run concurrently', async () => {
    const path = join(dir, 'concurrent.jsonl');
    const model = new ScriptedModel({ delayMs: 2, respond: (request) => `echo ${request.contents.length}` });
    const plugin = new DebugLoggingPlugin({ path });
    const h = harness(new LlmAgent({ name: 'a', model }), [plugin]);
    const runs = await Promise.all([1, 2, 3, 4].map((i) => h.send(`hi ${i}`, { sessionId: `s${i}` })));
    await plugin.close();
    const all = await records(path);
    for (const events of runs) {
      const id = events[0]?.invocationId;
      expect(all.filter((r) => r.invocationId === id).map((r) => r.type)).toEqual([
        'user_message',
        'event',
        'run_start',
        'model_request',
        'model_response',
        'event',
        'final_state',
      ]);
    }
  });

  it('records model and tool errors, can redact inline data, and a failing write never fails the run', async () => {
    const path = join(dir, 'debug.jsonl');
    const broken = new FunctionTool({
      name: 'broken',
      description: '',
      parameters: z.object({}),
      execute: () => {
        throw new Error('disk full');
      },
    });
    const model = new ScriptedModel([functionCallResponse('broken'), new Error('model down')]);
    const plugin = new DebugLoggingPlugin({ path, redactInlineData: true });
    const h = harness(new LlmAgent({ name: 'a', model, tools: [broken] }), [plugin]);
    await h.send({
      role: 'user',
      parts: [{ text: 'look' }, { inlineData: { mimeType: 'image/png', data: 'AAAABBBB' } }],
    });
    const all = await records(path);
    expect(all.find((r) => r.type === 'tool_error')).toMatchObject({
      tool: 'broken',
      error: { message: 'disk full' },
    });
    expect(all.find((r) => r.type === 'model_error')).toMatchObject({ error: { message: 'model down' } });
    expect(all.find((r) => r.type === 'user_message')?.message).toEqual({
      role: 'user',
      parts: [{ text: 'look' }, { inlineData: { mimeType: 'image/png', data: '<8 base64 chars>' } }],
    });

    const failures: unknown[] = [];
    const unwritable = new DebugLoggingPlugin({
      path: join(path, 'not-a-folder', 'x.jsonl'),
      onWriteError: (e) => failures.push(e),
    });
    const h2 = harness(new LlmAgent({ name: 'a', model: new ScriptedModel(['fine']) }), [unwritable]);
    const events = await h2.send('hi');
    expect(events.at(-1)?.content?.parts[0]?.text).toBe('fine');
    await unwritable.close();
    expect(failures.length).toBeGreaterThan(0);
  });
});
