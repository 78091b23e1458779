// The benchmark turn as an app for an HTTP server: ours (`@adk/core`) for `@adk/server`, and
// @google/adk's for the same API served by @google/adk's runner. Same script as the agent-loop
// scenarios: user message → the model calls get_weather → the tool runs → the model answers.
import { FunctionTool, type Llm, LlmAgent, type LlmRequest, type LlmResponse } from '@adk/core';
import * as google from '@google/adk';
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

class ScriptedGoogleLlm extends google.BaseLlm {
  constructor() {
    super({ model: 'scripted-bench-model' });
  }

  override async *generateContentAsync(request: google.LlmRequest): AsyncGenerator<google.LlmResponse, void> {
    const last = request.contents[request.contents.length - 1];
    if (last?.parts?.some((part) => part.functionResponse !== undefined)) {
      yield { content: { role: 'model', parts: [{ text: FINAL_TEXT }] }, turnComplete: true };
      return;
    }
    yield {
      content: { role: 'model', parts: [{ functionCall: { name: TOOL_NAME, args: { ...TOOL_ARGS } } }] },
      turnComplete: true,
    };
  }

  override connect(): Promise<google.BaseLlmConnection> {
    return Promise.reject(new Error('live connections are not part of the benchmark'));
  }
}

export function googleServerApp(): google.LlmAgent {
  google.setLogLevel(google.LogLevel.ERROR);
  return new google.LlmAgent({
    name: 'assistant',
    model: new ScriptedGoogleLlm(),
    instruction: INSTRUCTION,
    tools: [
      new google.FunctionTool({
        name: TOOL_NAME,
        description: TOOL_DESCRIPTION,
        parameters: z.object({ city: z.string() }),
        execute: async () => ({ ...TOOL_RESULT }),
      }),
    ],
  });
}
