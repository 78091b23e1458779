// Child process: runs the workflow scenario on one framework (sessions at once, turns each) and
// prints per-turn timings, node runs and its peak RSS.

import {
  expectedOutput,
  FUNCTION_NODES_PER_TURN,
  turnMessage,
  type WorkflowDriver,
} from '../frameworks/workflow-graph.js';
import { peakRssBytes } from '../harness/stats.js';
import { emitResult, workerArgs } from './protocol.js';

export interface WorkflowArgs {
  framework: 'adk' | 'google-adk';
  sessions: number;
  turns: number;
  warmupTurns: number;
}

export interface WorkflowResult {
  framework: WorkflowArgs['framework'];
  totalMs: number;
  turnMs: number[];
  turns: number;
  nodeRuns: number;
  peakRssBytes: number;
}

async function createDriver(args: WorkflowArgs): Promise<WorkflowDriver> {
  if (args.framework === 'adk')
    return (await import('../frameworks/workflow-adk.js')).createAdkWorkflowDriver();
  return (await import('../frameworks/workflow-google.js')).createGoogleWorkflowDriver();
}

async function main(): Promise<void> {
  const args = workerArgs<WorkflowArgs>();
  const driver = await createDriver(args);
  const check = async (turn: (text: string) => Promise<unknown>, i: number) => {
    const message = turnMessage(i);
    const output = await turn(message);
    if (output !== expectedOutput(message))
      throw new Error(`turn ${i} ended with ${JSON.stringify(output)}, not ${expectedOutput(message)}`);
  };
  if (args.warmupTurns > 0) {
    const warm = await driver.openSession('warmup');
    for (let i = 0; i < args.warmupTurns; i++) await check(warm, i);
  }
  const baseRuns = driver.counters.nodeRuns;
  const turnMs: number[] = [];
  const runSession = async (index: number) => {
    const turn = await driver.openSession(`s${index}`);
    for (let i = 0; i < args.turns; i++) {
      const start = performance.now();
      await check(turn, i);
      turnMs.push(performance.now() - start);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: args.sessions }, (_, index) => runSession(index)));
  const totalMs = performance.now() - start;
  const nodeRuns = driver.counters.nodeRuns - baseRuns;
  const turns = args.sessions * args.turns;
  if (nodeRuns !== turns * FUNCTION_NODES_PER_TURN)
    throw new Error(
      `ran ${nodeRuns} function nodes for ${turns} turns (expected ${FUNCTION_NODES_PER_TURN} each)`,
    );
  const result: WorkflowResult = {
    framework: args.framework,
    totalMs,
    turnMs,
    turns,
    nodeRuns,
    peakRssBytes: peakRssBytes(),
  };
  emitResult(result);
}

await main();
