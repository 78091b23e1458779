import {
  type Content,
  FunctionTool,
  InMemorySessionService,
  type Llm,
  LlmAgent,
  type LlmRequest,
  type LlmResponse,
  Runner,
  type SessionService,
} from '@adk/core';
import { z } from 'zod';
import { loadSqlSessionService } from './adk-sql.js';
import {
  type DriverOptions,
  FINAL_TEXT,
  INSTRUCTION,
  TOOL_ARGS,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  TOOL_RESULT,
  type TurnDriver,
  type WorkCounters,
} from './types.js';

/** The scripted model, written against the `Llm` contract as any custom model would be. */
class ScriptedLlm implements Llm {
  readonly model = 'scripted-bench-model';
  private nextCall = 0;

  constructor(private readonly counters: WorkCounters) {}

  async *generate(request: LlmRequest): AsyncIterable<LlmResponse> {
    this.counters.modelCalls++;
    this.counters.lastRequestItems = request.contents.length;
    const last = request.contents[request.contents.length - 1];
    const answered = last?.parts.some((part) => part.functionResponse !== undefined) ?? false;
    if (answered) {
      yield {
        content: { role: 'model', parts: [{ text: FINAL_TEXT }] },
        turnComplete: true,
        finishReason: 'STOP',
      };
    } else {
      yield {
        content: {
          role: 'model',
          parts: [
            { functionCall: { id: `call_${++this.nextCall}`, name: TOOL_NAME, args: { ...TOOL_ARGS } } },
          ],
        },
        turnComplete: true,
        finishReason: 'STOP',
      };
    }
  }
}

export async function createAdkDriver(options: DriverOptions): Promise<TurnDriver> {
  const counters: WorkCounters = { modelCalls: 0, toolCalls: 0, lastRequestItems: 0 };
  const tool = new FunctionTool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    parameters: z.object({ city: z.string() }),
    execute: async () => {
      counters.toolCalls++;
      return { ...TOOL_RESULT };
    },
  });
  const agent = new LlmAgent({
    name: 'assistant',
    model: new ScriptedLlm(counters),
    instruction: INSTRUCTION,
    tools: [tool],
  });
  const sessionService: SessionService =
    options.store === 'memory' ? new InMemorySessionService() : await loadSqlSessionService(options);
  const appName = 'bench';
  const runner = new Runner({ appName, agent, sessionService });
  return {
    framework: 'adk',
    counters,
    async openSession(sessionId) {
      await sessionService.createSession({ appName, userId: 'u', sessionId });
      return async (text) => {
        const newMessage: Content = { role: 'user', parts: [{ text }] };
        for await (const event of runner.run({ userId: 'u', sessionId, newMessage })) {
          if (event.errorCode)
            throw new Error(`@adk/core error event: ${event.errorCode} ${event.errorMessage}`);
        }
      };
    },
    async close() {
      await sessionService.close?.();
    },
  };
}
