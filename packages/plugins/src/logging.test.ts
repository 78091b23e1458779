import { FunctionTool, LlmAgent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { harness } from './__fixtures__/harness.js';
import { LoggingPlugin } from './logging.js';

describe('LoggingPlugin', () => {
  it('writes one concise line per hook to the given logger and changes nothing', async () => {
    const lines: string[] = [];
    const add = new FunctionTool({
      name: 'add',
      description: 'adds',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => ({ sum: a + b }),
    });
    const flaky = new FunctionTool({
      name: 'flaky',
      description: 'fails',
      parameters: z.object({}),
      execute: () => {
        throw new Error('disk full');
      },
    });
    const model = new ScriptedModel([
      functionCallResponse('add', { a: 1, b: 2 }),
      functionCallResponse('flaky'),
      {
        content: { role: 'model', parts: [{ text: 'three' }] },
        usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 1 },
      },
    ]);
    const h = harness(new LlmAgent({ name: 'calc', model, tools: [add, flaky] }), [
      new LoggingPlugin({ logger: { info: (line) => lines.push(line) } }),
    ]);
    const events = await h.send('add 1 and 2');

    expect(events.at(-1)?.content?.parts[0]?.text).toBe('three');
    const hooks = lines.map((l) => l.split(' ')[1]);
    expect(hooks).toEqual([
      'onUserMessage',
      'onEvent',
      'beforeRun',
      'beforeAgent',
      'beforeModel',
      'afterModel',
      'onEvent',
      'beforeTool',
      'afterTool',
      'onEvent',
      'beforeModel',
      'afterModel',
      'onEvent',
      'beforeTool',
      'onToolError',
      'onEvent',
      'beforeModel',
      'afterModel',
      'onEvent',
      'afterAgent',
      'afterRun',
    ]);
    const invocationId = events[0]?.invocationId;
    expect(lines.every((l) => l.startsWith('[adk] ') && l.includes(`inv=${invocationId}`))).toBe(true);
    expect(lines).toContain(`[adk] onUserMessage inv=${invocationId} user=u session=s message="add 1 and 2"`);
    expect(lines.find((l) => l.includes('beforeTool') && l.includes('tool=add'))).toMatch(
      /args=\{"a":1,"b":2\}/,
    );
    expect(lines.find((l) => l.includes('afterTool'))).toMatch(/result=\{"sum":3\}/);
    expect(lines.find((l) => l.includes('onToolError'))).toMatch(/tool=flaky .*error=disk full/);
    expect(lines.filter((l) => l.includes('afterModel')).at(-1)).toMatch(
      /model=scripted "three" tokens in=7 out=1$/,
    );
    expect(lines.every((l) => !l.includes('\n'))).toBe(true);
  });
});
