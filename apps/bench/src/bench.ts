import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEnvironment, type Environment } from './harness/environment.js';
import { renderMarkdown, renderTable } from './harness/report.js';
import { renderSvg } from './harness/svg.js';
import { newReport, type Scenario, type ScenarioReport } from './harness/types.js';
import { a2a } from './scenarios/a2a.js';
import { bundleSize } from './scenarios/bundle-size.js';
import { coldStart } from './scenarios/cold-start.js';
import { concurrency } from './scenarios/concurrency.js';
import { devUiScenario } from './scenarios/dev-ui.js';
import { frontends } from './scenarios/frontends.js';
import { guardrailsScenario } from './scenarios/guardrails.js';
import { liveScenario } from './scenarios/live.js';
import { longSession } from './scenarios/long-session.js';
import { memory } from './scenarios/memory.js';
import { memoryRecall } from './scenarios/memory-recall.js';
import { persistentSessions } from './scenarios/persistent-sessions.js';
import { providerPath } from './scenarios/provider-path.js';
import { runsAtScale } from './scenarios/runs-at-scale.js';
import { sandboxScenario } from './scenarios/sandbox.js';
import { scorersScenario } from './scenarios/scorers.js';
import { server } from './scenarios/server.js';
import { storage } from './scenarios/storage.js';
import { timeTravel } from './scenarios/time-travel.js';
import { tracesScenario } from './scenarios/traces.js';
import { workflowScenario } from './scenarios/workflow.js';

/** In report order; memory reads what the first two measured, so it comes after them. */
export const scenarios: Scenario[] = [
  longSession,
  concurrency,
  memory,
  memoryRecall,
  persistentSessions,
  coldStart,
  providerPath,
  a2a,
  storage,
  server,
  devUiScenario,
  liveScenario,
  runsAtScale,
  workflowScenario,
  timeTravel,
  sandboxScenario,
  frontends,
  bundleSize,
  guardrailsScenario,
  tracesScenario,
  scorersScenario,
];

export interface BenchOptions {
  quick: boolean;
  /** Scenario ids to run (all when omitted). */
  only?: string[];
  log?: (message: string) => void;
}

export interface BenchRun {
  environment: Environment;
  reports: ScenarioReport[];
  markdown: string;
  svg: string;
}

export async function runBench(options: BenchOptions): Promise<BenchRun> {
  const log = options.log ?? ((message: string) => console.log(message));
  const environment = describeEnvironment();
  const tmpDir = await mkdtemp(join(tmpdir(), 'adk-bench-'));
  const reports: ScenarioReport[] = [];
  try {
    for (const scenario of scenarios) {
      if (options.only && !options.only.includes(scenario.id)) continue;
      log(`▶ ${scenario.title}`);
      const started = performance.now();
      let report: ScenarioReport;
      try {
        report = await scenario.run({ quick: options.quick, tmpDir, log });
      } catch (error) {
        report = newReport(scenario.id, scenario.title);
        const message = error instanceof Error ? error.message : String(error);
        report.notes.push(`**Error**: the scenario failed: ${message.split('\n')[0]}`);
        log(`  failed: ${message}`);
      }
      reports.push(report);
      for (const table of report.tables) log(indent(renderTable(table)));
      for (const reason of report.skipped) log(`  skipped: ${reason}`);
      for (const note of report.notes) log(`  note: ${note}`);
      log(`  (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    }
  } finally {
    await rm(tmpDir, { recursive: true, force: true });
  }
  const checks = reports.flatMap((report) => report.checks);
  return {
    environment,
    reports,
    markdown: renderMarkdown(environment, reports, { quick: options.quick }),
    svg: renderSvg(environment, checks),
  };
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
