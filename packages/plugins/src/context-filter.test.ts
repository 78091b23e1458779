import {
  type Content,
  FunctionTool,
  isDynamicInstructionContent,
  LlmAgent,
  type LlmRequest,
} from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { harness } from './__fixtures__/harness.js';
import { ContextFilterPlugin } from './context-filter.js';

const echo = new FunctionTool({
  name: 'echo',
  description: '',
  parameters: z.object({ n: z.number() }),
  execute: ({ n }) => ({ n }),
});

/** Each user message N makes the model call echo(N) and then answer "answer N". */
function toolModel() {
  return new ScriptedModel({
    respond: (request) => {
      const last = request.contents.at(-1);
      const text = last?.parts[0]?.text;
      if (text?.startsWith('message ')) return functionCallResponse('echo', { n: Number(text.slice(8)) });
      const n = last?.parts[0]?.functionResponse?.response.n;
      return `answer ${n}`;
    },
  });
}

function summary(request: LlmRequest | undefined): string[] {
  return (request?.contents ?? []).map((c: Content) => {
    const p = c.parts[0];
    if (p?.functionCall) return `call ${p.functionCall.args.n}`;
    if (p?.functionResponse) return `response ${p.functionResponse.response.n}`;
    return `${c.role}: ${p?.text}`;
  });
}

/** Every function response comes right after the content with its call. */
function pairsIntact(request: LlmRequest | undefined): boolean {
  const contents = request?.contents ?? [];
  return contents.every((c, i) =>
    c.parts.every((p) => {
      if (!p.functionResponse) return true;
      const id = p.functionResponse.id;
      return contents[i - 1]?.parts.some((q) => q.functionCall?.id === id) ?? false;
    }),
  );
}

describe('ContextFilterPlugin', () => {
  it('neither the instruction sent in contents nor another agent’s turn counts as an invocation, and the instruction is kept', async () => {
    const model = toolModel();
    const h = harness(
      new LlmAgent({
        name: 'a',
        model,
        tools: [echo],
        staticInstruction: 'Static part.',
        instruction: 'Dynamic part.',
      }),
      [new ContextFilterPlugin({ invocationsToKeep: 1 })],
    );
    for (const n of [1, 2]) await h.send(`message ${n}`);
    const first = model.requests.at(-2)?.contents ?? [];
    const last = model.requests.at(-1)?.contents ?? [];
    expect(isDynamicInstructionContent(first[0] as Content)).toBe(true);
    expect(summary(model.requests.at(-2)).slice(1)).toEqual(['user: message 2']);
    // After a function response the instruction comes last (ADK never puts it before a response).
    expect(summary(model.requests.at(-1)).slice(0, 3)).toEqual(['user: message 2', 'call 2', 'response 2']);
    expect(isDynamicInstructionContent(last[3] as Content)).toBe(true);
  });

  it('keeps only the last N invocations of the history', async () => {
    const model = toolModel();
    const h = harness(new LlmAgent({ name: 'a', model, tools: [echo] }), [
      new ContextFilterPlugin({ invocationsToKeep: 2 }),
    ]);
    for (const n of [1, 2, 3]) await h.send(`message ${n}`);

    const last = model.requests.at(-1);
    expect(summary(last)).toEqual([
      'user: message 2',
      'call 2',
      'response 2',
      'model: answer 2',
      'user: message 3',
      'call 3',
      'response 3',
    ]);
    // The first request of the third invocation: two invocations, the current one just begun.
    expect(summary(model.requests.at(-2))).toEqual([
      'user: message 2',
      'call 2',
      'response 2',
      'model: answer 2',
      'user: message 3',
    ]);
    // The session keeps everything; only the request was filtered.
    expect((await h.session())?.events).toHaveLength(12);
  });

  it('applies a custom filter but never separates a function call from its response', async () => {
    const model = toolModel();
    const h = harness(new LlmAgent({ name: 'a', model, tools: [echo] }), [
      new ContextFilterPlugin({
        // Keeps user contents only: that would orphan every function response.
        filter: (contents) => contents.filter((c) => c.role === 'user'),
      }),
    ]);
    await h.send('message 1');
    await h.send('message 2');

    const last = model.requests.at(-1);
    expect(summary(last)).toEqual([
      'user: message 1',
      'call 1',
      'response 1',
      'user: message 2',
      'call 2',
      'response 2',
    ]);
    expect(model.requests.every(pairsIntact)).toBe(true);
  });

  it('combines N invocations with a custom filter (which sees the context)', async () => {
    const model = toolModel();
    const seen: string[] = [];
    const h = harness(new LlmAgent({ name: 'a', model, tools: [echo] }), [
      new ContextFilterPlugin({
        invocationsToKeep: 1,
        filter: (contents, context) => {
          seen.push(context.agentName);
          return contents.filter((c) => !c.parts.some((p) => p.functionCall));
        },
      }),
    ]);
    await h.send('message 1');
    await h.send('message 2');
    expect(summary(model.requests.at(-1))).toEqual(['user: message 2', 'call 2', 'response 2']);
    expect(new Set(seen)).toEqual(new Set(['a']));
  });

  it('rejects a configuration that filters nothing', () => {
    expect(() => new ContextFilterPlugin({})).toThrow(/needs invocationsToKeep/);
    expect(() => new ContextFilterPlugin({ invocationsToKeep: 0 })).toThrow(/at least 1/);
  });
});
