import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FunctionTool, InMemoryRunner, LlmAgent, type LlmRequest, userContent } from '../index.js';
import { functionCallResponse, ScriptedModel } from '../testing/index.js';

describe('history built incrementally across steps and turns', () => {
  it('each request carries the whole conversation, and a hook editing one request never changes the next', async () => {
    const lookup = new FunctionTool({
      name: 'lookup',
      description: '',
      parameters: z.object({ q: z.string() }),
      execute: ({ q }) => ({ found: q }),
    });
    const model = new ScriptedModel([
      functionCallResponse('lookup', { q: 'a' }),
      'answer one',
      functionCallResponse('lookup', { q: 'b' }),
      'answer two',
    ]);
    const agent = new LlmAgent({
      name: 'helper',
      model,
      tools: [lookup],
      beforeModelCallback: ({ request }: { request: LlmRequest }) => {
        request.contents.push({ role: 'user', parts: [{ text: 'injected by a hook' }] });
      },
    });
    const runner = new InMemoryRunner({ agent });
    for (const text of ['first', 'second']) {
      for await (const _ of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent(text) })) {
      }
    }
    const shapes = model.requests.map((r) =>
      r.contents
        .filter((c) => c.parts[0]?.text !== 'injected by a hook')
        .map((c) => c.parts.map((p) => p.text ?? Object.keys(p)[0]).join('+')),
    );
    expect(shapes).toEqual([
      ['first'],
      ['first', 'functionCall', 'functionResponse'],
      ['first', 'functionCall', 'functionResponse', 'answer one', 'second'],
      [
        'first',
        'functionCall',
        'functionResponse',
        'answer one',
        'second',
        'functionCall',
        'functionResponse',
      ],
    ]);
    // The hook added one content to each request, and only to that request.
    for (const r of model.requests) {
      expect(r.contents.filter((c) => c.parts[0]?.text === 'injected by a hook')).toHaveLength(1);
    }
  });
});
