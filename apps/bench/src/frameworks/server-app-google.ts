// The benchmark turn as an @google/adk agent, for @google/adk's runner behind Hono and for
// @google/adk-devtools' api_server (which loads it through devtools-agents/bench/agent.ts). Kept
// apart from server-apps.ts so that bundling it pulls in @google/adk and nothing of ours.
import * as google from '@google/adk';
import { z } from 'zod';
import { FINAL_TEXT, INSTRUCTION, TOOL_ARGS, TOOL_DESCRIPTION, TOOL_NAME, TOOL_RESULT } from './types.js';

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
