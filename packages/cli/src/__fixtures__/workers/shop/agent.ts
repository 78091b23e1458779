import { appendFileSync } from 'node:fs';
import { FunctionTool, LlmAgent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { z } from 'zod';

// The side file the test reads: one line per model call ("model <tag> <step>") and per start of
// the non-idempotent tool ("charge <call id> <tag> <pid>"), appended by whichever process runs the step.
const SIDE_FILE = process.env.ADK_TEST_SIDE_FILE ?? '';
const note = (line: string) => {
  if (SIDE_FILE) appendFileSync(SIDE_FILE, `${line}\n`);
};

/**
 * "pay <tag>": the model calls `charge` (slow, not idempotent), then `receipt` (idempotent), then
 * answers "paid <tag>". Each model call notes its run tag and step (how many tool answers it has seen).
 */
export const rootAgent = new LlmAgent({
  name: 'cashier',
  model: new ScriptedModel({
    respond: (request) => {
      const contents = request.contents;
      let start = contents.length - 1;
      while (start > 0 && !contents[start]?.parts.some((p) => p.text?.startsWith('pay '))) start--;
      const tag = contents[start]?.parts.find((p) => p.text)?.text?.slice(4) ?? '?';
      const step = contents.slice(start).filter((c) => c.parts.some((p) => p.functionResponse)).length;
      note(`model ${tag} ${step}`);
      if (step === 0) return functionCallResponse('charge', { tag });
      if (step === 1) return functionCallResponse('receipt', { tag });
      return `paid ${tag}`;
    },
  }),
  tools: [
    new FunctionTool({
      name: 'charge',
      description: 'charges the card (slow; never run twice)',
      parameters: z.object({ tag: z.string() }),
      execute: async ({ tag }, ctx) => {
        note(`charge ${ctx.functionCallId} ${tag} ${process.pid}`);
        await new Promise((resolve) => setTimeout(resolve, 400));
        return { charged: tag };
      },
    }),
    new FunctionTool({
      name: 'receipt',
      description: 'prints a receipt (safe to repeat)',
      parameters: z.object({ tag: z.string() }),
      idempotent: true,
      execute: async ({ tag }) => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        return { receipt: tag };
      },
    }),
  ],
});
