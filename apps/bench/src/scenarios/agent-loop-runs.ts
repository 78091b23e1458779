import { type FrameworkName, frameworkLabels, frameworkNames } from '../frameworks/types.js';
import { runWorker, summarizeError } from '../harness/child.js';
import type { BenchConfig, ScenarioReport } from '../harness/types.js';
import type { AgentLoopArgs, AgentLoopResult } from '../workers/agent-loop.js';

export type LoopOutcome = {
  framework: FrameworkName;
  result?: AgentLoopResult;
  skip?: string;
  error?: string;
};

/** Results of scenarios 1 and 2 by mode, kept for scenario 3 (memory). */
export const loopOutcomes = new Map<'long' | 'concurrent', LoopOutcome[]>();

/**
 * Runs one agent-loop mode on every framework, one framework at a time, each in a fresh process,
 * and checks that each did the same work (two model calls and one tool run per turn).
 */
export async function runOnEveryFramework(
  config: BenchConfig,
  report: ScenarioReport,
  args: Omit<AgentLoopArgs, 'framework'>,
): Promise<LoopOutcome[]> {
  const outcomes: LoopOutcome[] = [];
  for (const framework of frameworkNames) {
    config.log(`  ${frameworkLabels[framework]}: ${args.sessions} × ${args.turns} turns`);
    try {
      const outcome = await runWorker<AgentLoopResult>('agent-loop.ts', { ...args, framework });
      if (outcome.kind === 'skip') {
        report.skipped.push(`${frameworkLabels[framework]}: ${outcome.reason}`);
        outcomes.push({ framework, skip: outcome.reason });
        continue;
      }
      const result = outcome.value;
      const expectedTurns = args.turns * args.sessions;
      if (result.modelCalls !== 2 * expectedTurns || result.toolCalls !== expectedTurns) {
        throw new Error(
          `did different work: ${result.modelCalls} model calls and ${result.toolCalls} tool runs for ${expectedTurns} turns`,
        );
      }
      outcomes.push({ framework, result });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      report.notes.push(`**Error** in ${frameworkLabels[framework]}: ${summarizeError(error)}`);
      config.log(`  ${frameworkLabels[framework]} failed: ${message}`);
      outcomes.push({ framework, error: message });
    }
  }
  loopOutcomes.set(args.mode, outcomes);
  return outcomes;
}

export function resultOf(outcomes: LoopOutcome[], framework: FrameworkName): AgentLoopResult | undefined {
  return outcomes.find((outcome) => outcome.framework === framework)?.result;
}

export function turnsPerSecond(turns: number, ms: number): number {
  return ms > 0 ? (turns * 1000) / ms : Number.NaN;
}
