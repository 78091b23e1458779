import { LlmAgent } from '@adk/core';

export const helper = 42;
// Exported under the wrong name: the loader must say which export it expected.
export const myAgent = new LlmAgent({ name: 'no_export' });
