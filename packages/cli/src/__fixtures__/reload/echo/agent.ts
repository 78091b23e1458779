import { LlmAgent } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { label } from './label.js';

// Read when the module loads: a changed .env only shows once the app is reloaded.
const greeting = process.env.RELOAD_GREETING ?? 'hello';

/** Answers "<label> <greeting>: <text>"; a message starting with "slow" takes 1.5 s. */
export const rootAgent = new LlmAgent({
  name: 'echo',
  description: 'Says which version of its code answered.',
  model: new ScriptedModel({
    respond: async (request) => {
      const text =
        request.contents
          .at(-1)
          ?.parts.map((p) => p.text ?? '')
          .join('') ?? '';
      await new Promise((resolve) => setTimeout(resolve, text.startsWith('slow') ? 1500 : 5));
      return `${label} ${greeting}: ${text}`;
    },
  }),
});
