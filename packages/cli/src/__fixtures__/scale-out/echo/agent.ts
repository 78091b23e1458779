import { LlmAgent } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';

/**
 * Answers "echo: <the user's words>" after a few milliseconds; words starting with "slow" take 3 s,
 * so a test can catch a run in progress.
 */
export const rootAgent = new LlmAgent({
  name: 'echo',
  description: 'Repeats what the user said.',
  model: new ScriptedModel({
    respond: async (request) => {
      const text =
        request.contents
          .at(-1)
          ?.parts.map((p) => p.text ?? '')
          .join('') ?? '';
      await new Promise((resolve) => setTimeout(resolve, text.startsWith('slow') ? 3000 : 5));
      return `echo: ${text}`;
    },
  }),
});
