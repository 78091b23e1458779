import { LlmAgent } from '@adk/core';

/** A default export works as well as `rootAgent`. */
export default new LlmAgent({
  name: 'good',
  description: 'Says hello.',
  model: 'gemini-2.5-flash',
  instruction: `Say ${process.env.ADK_FIXTURE_GREETING ?? 'hello'}.`,
});
