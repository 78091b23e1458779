import {
  BaseLlm,
  type BaseLlmConnection,
  type BaseSessionService,
  DatabaseSessionService,
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  type LlmRequest,
  type LlmResponse,
  LogLevel,
  Runner,
  setLogLevel,
} from '@google/adk';
import { z } from 'zod';
import {
  type DriverOptions,
  FINAL_TEXT,
  INSTRUCTION,
  SkipError,
  TOOL_ARGS,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  TOOL_RESULT,
  type TurnDriver,
  type WorkCounters,
} from './types.js';

/**
 * The scripted model as a `BaseLlm` subclass, which is how a @google/adk user plugs in a model of
 * their own. Like Gemini, it sends function calls without ids and lets the framework assign them.
 */
class ScriptedGoogleLlm extends BaseLlm {
  constructor(private readonly counters: WorkCounters) {
    super({ model: 'scripted-bench-model' });
  }

  override async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    this.counters.modelCalls++;
    this.counters.lastRequestItems = request.contents.length;
    const last = request.contents[request.contents.length - 1];
    const answered = last?.parts?.some((part) => part.functionResponse !== undefined) ?? false;
    if (answered) {
      yield { content: { role: 'model', parts: [{ text: FINAL_TEXT }] }, turnComplete: true };
    } else {
      yield {
        content: { role: 'model', parts: [{ functionCall: { name: TOOL_NAME, args: { ...TOOL_ARGS } } }] },
        turnComplete: true,
      };
    }
  }

  override connect(): Promise<BaseLlmConnection> {
    return Promise.reject(new Error('live connections are not part of the benchmark'));
  }
}

/**
 * @google/adk's session store: in memory, or its `DatabaseSessionService` (MikroORM) on the same
 * Postgres our SQL store is measured on.
 */
async function googleSessionService(options: DriverOptions | undefined): Promise<BaseSessionService> {
  if (options?.store === 'postgres') {
    if (!options.postgresUrl) throw new Error('the postgres store needs a URL');
    const service = new DatabaseSessionService(options.postgresUrl);
    await service.init();
    return service;
  }
  if (options?.store === 'pglite') throw new SkipError('@google/adk has no PGlite session store');
  return new InMemorySessionService();
}

export async function createGoogleAdkDriver(options?: DriverOptions): Promise<TurnDriver> {
  // Default logging prints per model call; a benchmark measures the framework, not the console.
  setLogLevel(LogLevel.ERROR);
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
    model: new ScriptedGoogleLlm(counters),
    instruction: INSTRUCTION,
    tools: [tool],
  });
  const sessionService = await googleSessionService(options);
  const appName = 'bench';
  const runner = new Runner({ appName, agent, sessionService });
  return {
    framework: 'google-adk',
    counters,
    async openSession(sessionId) {
      await sessionService.createSession({ appName, userId: 'u', sessionId });
      return async (text) => {
        const events = runner.runAsync({
          userId: 'u',
          sessionId,
          newMessage: { role: 'user', parts: [{ text }] },
        });
        for await (const event of events) {
          if (event.errorCode)
            throw new Error(`@google/adk error event: ${event.errorCode} ${event.errorMessage}`);
        }
      };
    },
    async close() {
      await closeGoogleSessionService(sessionService);
    },
  };
}

/**
 * DatabaseSessionService has no close(): its MikroORM instance (a private field) keeps the pg pool
 * open, and with it the worker process alive after its result. Close that pool when there is one.
 */
async function closeGoogleSessionService(service: BaseSessionService): Promise<void> {
  if (!(service instanceof DatabaseSessionService)) return;
  const orm = (service as unknown as { orm?: { close(force?: boolean): Promise<void> } }).orm;
  await orm?.close(true);
}
