import { LlmAgent, SequentialAgent } from '@adk/core';
import { model } from '../_shared/model.js';

/**
 * A fixed three-step pipeline. Each step stores its answer in state (`outputKey`) and the next
 * step's instruction reads it (`{outline}`, `{draft}`), so the state panel shows the hand-offs.
 */
export const rootAgent = new SequentialAgent({
  name: 'pipeline',
  description: 'Outlines, drafts and edits a short text about the topic the user gives.',
  subAgents: [
    new LlmAgent({
      name: 'outliner',
      model,
      instruction: 'Write a three-point outline for a short text on the topic the user gives.',
      outputKey: 'outline',
    }),
    new LlmAgent({
      name: 'drafter',
      model,
      instruction: 'Draft one paragraph that follows this outline: {outline}',
      outputKey: 'draft',
    }),
    new LlmAgent({
      name: 'editor',
      model,
      instruction: 'Tighten this draft and give the final version only: {draft}',
      outputKey: 'final_text',
    }),
  ],
});
