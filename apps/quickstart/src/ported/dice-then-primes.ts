import {
  BasePlugin,
  type CallbackContext,
  FunctionTool,
  LlmAgent,
  type LlmRequest,
  SequentialAgent,
} from '@adk/core';
import { z } from 'zod/v3';

const roll = new FunctionTool({
  name: 'roll',
  description: 'Rolls a die with the given number of sides.',
  parameters: z.object({ sides: z.number().int() }),
  execute: ({ sides }: { sides: number }) => Math.min(sides, 7),
});

const primes = new FunctionTool({
  name: 'primes',
  description: 'Which of the numbers are prime.',
  parameters: z.object({ numbers: z.array(z.number()) }),
  execute: ({ numbers }: { numbers: number[] }) => {
    const found = numbers.filter((n) => n > 1 && [...Array(n).keys()].slice(2).every((d) => n % d !== 0));
    return found.length ? `${found.join(', ')} prime` : 'none prime';
  },
});

export const rootAgent = new SequentialAgent({
  name: 'dice_then_primes',
  subAgents: [
    new LlmAgent({
      name: 'roller',
      model: 'gemini-2.5-flash',
      instruction: 'Roll the die asked for.',
      tools: [roll],
    }),
    new LlmAgent({
      name: 'checker',
      model: 'gemini-2.5-flash',
      instruction: 'Check the rolls for primes.',
      tools: [primes],
    }),
  ],
});

/** Counts model calls, written the @google/adk way. */
export class CountingPlugin extends BasePlugin {
  calls: string[] = [];
  constructor() {
    super('counting');
  }
  override async beforeModelCallback({
    callbackContext,
    llmRequest,
  }: {
    callbackContext: CallbackContext;
    llmRequest: LlmRequest;
  }) {
    this.calls.push(`${callbackContext.agentName}:${llmRequest.model}`);
    return undefined;
  }
}
