import { GOOGLE_SEARCH, LlmAgent } from '@adk/core';

export const rootAgent = new LlmAgent({
  name: 'searcher',
  model: 'gemini-2.5-flash',
  description: 'Answers with Google Search results',
  instruction: 'Search the web with Google and answer from what you find.',
  tools: [GOOGLE_SEARCH],
});
