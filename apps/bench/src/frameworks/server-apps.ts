// The benchmark turn as an app for an HTTP server, ours (`@adk/core`) for `@adk/server`;
// server-app-google.ts holds @google/adk's twin. Same script as the agent-loop
// scenarios: user message → the model calls get_weather → the tool runs → the model answers.
import { FunctionTool, type Llm, LlmAgent, type LlmRequest, type LlmResponse } from '@adk/core';
import { z } from 'zod';
import { FINAL_TEXT, INSTRUCTION, TOOL_ARGS, TOOL_DESCRIPTION, TOOL_NAME, TOOL_RESULT } from './types.js';

class ScriptedLlm implements Llm {
  readonly model = 'scripted-bench-model';
  private nextCall = 0;

  async *generate(request: LlmRequest): AsyncIterable<LlmResponse> {
    const last = request.contents[request.contents.length - 1];
    if (last?.parts.some((part) => part.functionResponse !== undefined)) {
      yield {
        content: { role: 'model', parts: [{ text: FINAL_TEXT }] },
        turnComplete: true,
        finishReason: 'STOP',
      };
      return;
    }
    yield {
      content: {
        role: 'model',
        parts: [{ functionCall: { id: `call_${++this.nextCall}`, name: TOOL_NAME, args: { ...TOOL_ARGS } } }],
      },
      turnComplete: true,
      finishReason: 'STOP',
    };
  }
}

export function adkServerApp(): LlmAgent {
  return new LlmAgent({
    name: 'assistant',
    model: new ScriptedLlm(),
    instruction: INSTRUCTION,
    tools: [
      new FunctionTool({
        name: TOOL_NAME,
        description: TOOL_DESCRIPTION,
        parameters: z.object({ city: z.string() }),
        execute: async () => ({ ...TOOL_RESULT }),
      }),
    ],
  });
}
