import { FAN_OUT, NODES } from '../frameworks/workflow-graph.js';
import { runWorker, summarizeError } from '../harness/child.js';
import { fmt, fmtBytes, fmtMs, fmtRatio } from '../harness/format.js';
import { percentile } from '../harness/stats.js';
import { newReport, type Scenario } from '../harness/types.js';
import type { WorkflowArgs, WorkflowResult } from '../workers/workflow.js';
import { turnsPerSecond } from './agent-loop-runs.js';

const LABELS: Record<WorkflowArgs['framework'], string> = {
  adk: 'ADK for TypeScript',
  'google-adk': '@google/adk',
};

/**
 * A graph workflow under load: the same 10-node graph (a fan-out of 5 and a join, one route) on
 * our `Workflow` and on @google/adk 2.0's, each in a fresh process, many sessions at once.
 */
export const workflowScenario: Scenario = {
  id: 'workflow',
  title: '11. Graph workflow',
  async run(config) {
    const report = newReport(this.id, this.title);
    const sessions = config.quick ? 5 : 50;
    const turns = config.quick ? 4 : 20;
    const results = new Map<WorkflowArgs['framework'], WorkflowResult>();
    for (const framework of ['adk', 'google-adk'] as const) {
      config.log(`  ${LABELS[framework]}: ${sessions} sessions × ${turns} turns`);
      try {
        const args: WorkflowArgs = { framework, sessions, turns, warmupTurns: config.quick ? 2 : 20 };
        const outcome = await runWorker<WorkflowResult>('workflow.ts', args);
        if (outcome.kind === 'skip') {
          report.skipped.push(`${LABELS[framework]}: ${outcome.reason}`);
          continue;
        }
        results.set(framework, outcome.value);
      } catch (error) {
        report.notes.push(`**Error** in ${LABELS[framework]}: ${summarizeError(error)}`);
        config.log(
          `  ${LABELS[framework]} failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    const rows: string[][] = [];
    for (const [framework, result] of results) {
      rows.push([
        LABELS[framework],
        fmt(turnsPerSecond(result.turns, result.totalMs)),
        fmt((result.nodeRuns * 1000) / result.totalMs, 0),
        fmtMs(percentile(result.turnMs, 50)),
        fmtMs(percentile(result.turnMs, 99)),
        fmtBytes(result.peakRssBytes),
      ]);
    }
    report.tables.push({
      caption: `${NODES}-node workflow (fan-out of ${FAN_OUT}, a join, a route; function nodes), ${sessions} in-memory sessions × ${turns} turns, all sessions at once. Every turn's output is checked.`,
      headers: [
        'framework',
        'turns/s',
        'function nodes/s',
        'p50 turn latency',
        'p99 turn latency',
        'peak RSS',
      ],
      rows,
    });
    const ours = results.get('adk');
    const theirs = results.get('google-adk');
    const ratio =
      ours && theirs
        ? turnsPerSecond(ours.turns, ours.totalMs) / turnsPerSecond(theirs.turns, theirs.totalMs)
        : Number.NaN;
    config.log(`  ratio (turns/s, ours / @google/adk): ${fmtRatio(ratio)}`);
    report.checks.push({
      scenario: report.title,
      label: 'workflow turns/s vs @google/adk',
      target: '≥ 5×',
      measured: fmtRatio(ratio),
      pass: Number.isFinite(ratio) ? ratio >= 5 : undefined,
      ratio: { value: ratio, target: 5, chartLabel: '11 Workflow vs @google/adk' },
    });
    return report;
  },
};
