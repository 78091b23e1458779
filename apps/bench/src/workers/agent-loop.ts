// Child process: runs the long-session or the concurrency scenario on one framework and prints
// per-turn timings, the work counters and its peak RSS.
import { type DriverOptions, type FrameworkName, SkipError, type TurnDriver } from '../frameworks/types.js';
import { peakRssBytes } from '../harness/stats.js';
import { emitResult, emitSkip, workerArgs } from './protocol.js';

export interface AgentLoopArgs extends DriverOptions {
  framework: FrameworkName;
  mode: 'long' | 'concurrent';
  /** Turns per session. */
  turns: number;
  /** Sessions run at once (1 for the long session). */
  sessions: number;
  /** Turns run in a separate session first, to warm up the JIT. */
  warmupTurns: number;
  /**
   * Whole rounds of the measured work (sessions × turns at once, on other sessions) run after the
   * warm-up turns and before the measurement, so every framework is measured at its steady state.
   */
  warmupRounds?: number;
}

export interface AgentLoopResult {
  framework: FrameworkName;
  /** Wall time of the measured part, ms. */
  totalMs: number;
  /** Duration of every measured turn, ms; in turn order for the long session. */
  turnMs: number[];
  turns: number;
  modelCalls: number;
  toolCalls: number;
  /** Conversation items in the last model request. */
  lastRequestItems: number;
  peakRssBytes: number;
}

/** Loads only the framework under test, so that the process's memory and start-up are its own. */
async function createDriver(args: AgentLoopArgs): Promise<TurnDriver> {
  switch (args.framework) {
    case 'adk':
      return (await import('../frameworks/adk.js')).createAdkDriver(args);
    case 'google-adk':
      return (await import('../frameworks/google-adk.js')).createGoogleAdkDriver(args);
    case 'openai-agents':
      return (await import('../frameworks/openai-agents.js')).createOpenAiAgentsDriver();
  }
}

/** Session ids unique to this process: several workers may share one Postgres database. */
const RUN = `${process.pid}-${Date.now().toString(36)}`;

async function main(): Promise<void> {
  const args = workerArgs<AgentLoopArgs>();
  let driver: TurnDriver;
  try {
    driver = await createDriver(args);
  } catch (error) {
    if (error instanceof SkipError) return emitSkip(error.message);
    throw error;
  }
  if (args.warmupTurns > 0) {
    const warm = await driver.openSession(`warmup-${RUN}`);
    for (let i = 0; i < args.warmupTurns; i++) await warm(`What is the weather in Paris? (${i})`);
  }
  for (let round = 0; round < (args.warmupRounds ?? 0); round++) {
    await Promise.all(
      Array.from({ length: args.sessions }, async (_, index) => {
        const turn = await driver.openSession(`warm${round}-s${index}-${RUN}`);
        for (let i = 0; i < args.turns; i++) await turn(`What is the weather in Paris? (${i})`);
      }),
    );
  }
  const baseModelCalls = driver.counters.modelCalls;
  const baseToolCalls = driver.counters.toolCalls;

  const turnMs: number[] = [];
  const runSession = async (index: number) => {
    const turn = await driver.openSession(`s${index}-${RUN}`);
    for (let i = 0; i < args.turns; i++) {
      const start = performance.now();
      await turn(`What is the weather in Paris? (${i})`);
      turnMs.push(performance.now() - start);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: args.sessions }, (_, index) => runSession(index)));
  const totalMs = performance.now() - start;
  await driver.close();

  const result: AgentLoopResult = {
    framework: args.framework,
    totalMs,
    turnMs,
    turns: args.turns * args.sessions,
    modelCalls: driver.counters.modelCalls - baseModelCalls,
    toolCalls: driver.counters.toolCalls - baseToolCalls,
    lastRequestItems: driver.counters.lastRequestItems,
    peakRssBytes: peakRssBytes(),
  };
  emitResult(result);
}

await main();
