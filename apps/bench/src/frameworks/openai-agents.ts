import {
  Agent,
  type AgentOutputItem,
  MemorySession,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  type StreamEvent,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';
import { z } from 'zod';
import {
  FINAL_TEXT,
  INSTRUCTION,
  TOOL_ARGS,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  TOOL_RESULT,
  type TurnDriver,
  type WorkCounters,
} from './types.js';

/** The scripted model as an @openai/agents `Model`, which is how its users plug in a model. */
class ScriptedOpenAiModel implements Model {
  private nextCall = 0;

  constructor(private readonly counters: WorkCounters) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.counters.modelCalls++;
    const input = request.input;
    this.counters.lastRequestItems = typeof input === 'string' ? 1 : input.length;
    const last = typeof input === 'string' ? undefined : input[input.length - 1];
    const answered = last !== undefined && 'type' in last && last.type === 'function_call_result';
    const output: AgentOutputItem[] = answered
      ? [
          {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: FINAL_TEXT }],
          },
        ]
      : [
          {
            type: 'function_call',
            callId: `call_${++this.nextCall}`,
            name: TOOL_NAME,
            status: 'completed',
            arguments: JSON.stringify(TOOL_ARGS),
          },
        ];
    return { usage: new Usage(), output };
  }

  // biome-ignore lint/correctness/useYield: the benchmark never streams through this model
  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error('streaming is not part of the benchmark');
  }
}

export async function createOpenAiAgentsDriver(): Promise<TurnDriver> {
  // Tracing exports to the OpenAI platform over the network; the benchmark has no network.
  setTracingDisabled(true);
  const counters: WorkCounters = { modelCalls: 0, toolCalls: 0, lastRequestItems: 0 };
  const getWeather = tool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    parameters: z.object({ city: z.string() }),
    execute: async () => {
      counters.toolCalls++;
      return { ...TOOL_RESULT };
    },
  });
  const agent = new Agent({
    name: 'assistant',
    instructions: INSTRUCTION,
    model: new ScriptedOpenAiModel(counters),
    tools: [getWeather],
  });
  const runner = new Runner({ tracingDisabled: true });
  return {
    framework: 'openai-agents',
    counters,
    async openSession(sessionId) {
      // The SDK's in-memory session keeps the conversation across turns, as ours does.
      const session = new MemorySession({ sessionId });
      return async (text) => {
        const result = await runner.run(agent, text, { session });
        if (result.finalOutput !== FINAL_TEXT) {
          throw new Error(`@openai/agents: unexpected final output ${JSON.stringify(result.finalOutput)}`);
        }
      };
    },
    async close() {},
  };
}
