import { LlmAgent, SequentialAgent } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { harness } from './__fixtures__/harness.js';
import { GlobalInstructionPlugin } from './global-instruction.js';

describe('GlobalInstructionPlugin', () => {
  it('adds the instruction to every model request of every agent, before the agent instruction', async () => {
    const writerModel = new ScriptedModel(['draft']);
    const reviewerModel = new ScriptedModel(['ok']);
    const pipeline = new SequentialAgent({
      name: 'pipeline',
      subAgents: [
        new LlmAgent({ name: 'writer', model: writerModel, instruction: 'Write a draft.' }),
        new LlmAgent({ name: 'reviewer', model: reviewerModel, instruction: 'Review it.' }),
      ],
    });
    const h = harness(pipeline, [
      new GlobalInstructionPlugin('Answer in English. The user is {user:name?}.'),
    ]);
    await h.runner.sessionService.createSession({
      appName: 'app',
      userId: 'u',
      sessionId: 's',
      state: { 'user:name': 'Ada' },
    });
    await h.send('go');

    for (const request of [writerModel.requests[0], reviewerModel.requests[0]]) {
      expect(request?.systemInstruction?.startsWith('Answer in English. The user is Ada.\n\n')).toBe(true);
    }
    expect(writerModel.requests[0]?.systemInstruction).toContain('Write a draft.');
    expect(reviewerModel.requests[0]?.systemInstruction).toContain('Review it.');
  });

  it('takes a function of the context; an empty result adds nothing', async () => {
    const model = new ScriptedModel(['a', 'b']);
    const h = harness(new LlmAgent({ name: 'a', model }), [
      new GlobalInstructionPlugin({
        instruction: (context) => (context.userId === 'vip' ? 'Be extra polite.' : ''),
      }),
    ]);
    await h.send('hi', { userId: 'vip' });
    await h.send('hi', { userId: 'other' });
    expect(model.requests[0]?.systemInstruction?.startsWith('Be extra polite.\n\n')).toBe(true);
    expect(model.requests[1]?.systemInstruction).not.toContain('polite');
  });
});
