import { LlmAgent } from '@adk/core';

// Fails at load time, as a typo in an agent module would.
throw new Error('boom while building the agent');

export const rootAgent = new LlmAgent({ name: 'broken' });
