// The agent of scenario 12's recovery time: the model calls `step` once, then answers.
import { FunctionTool, LlmAgent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { z } from 'zod';

export const RECOVERY_ANSWER = 'Recovered and done.';

export function recoveryAgent(slow: boolean): LlmAgent {
  return new LlmAgent({
    name: 'recovery',
    model: new ScriptedModel({
      respond: (request) =>
        request.contents.at(-1)?.parts.some((p) => p.functionResponse)
          ? RECOVERY_ANSWER
          : functionCallResponse('step', {}),
    }),
    tools: [
      new FunctionTool({
        name: 'step',
        description: 'One step of work (idempotent: safe to run again after a crash).',
        parameters: z.object({}),
        idempotent: true,
        execute: async (_args, ctx) => {
          if (slow)
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, 60_000);
              ctx.signal.addEventListener('abort', () => {
                clearTimeout(timer);
                resolve();
              });
            });
          return { done: true };
        },
      }),
    ],
  });
}
