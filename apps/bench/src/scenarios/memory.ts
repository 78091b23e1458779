import { frameworkLabels } from '../frameworks/types.js';
import { fmtBytes, fmtRatio } from '../harness/format.js';
import { newReport, type Scenario } from '../harness/types.js';
import { loopOutcomes, resultOf } from './agent-loop-runs.js';

/** Peak RSS of the child processes of scenarios 1 and 2 (so it runs after them). */
export const memory: Scenario = {
  id: 'memory',
  title: '3. Memory',
  async run() {
    const report = newReport(this.id, this.title);
    const long = loopOutcomes.get('long') ?? [];
    const concurrent = loopOutcomes.get('concurrent') ?? [];
    if (long.length === 0 && concurrent.length === 0) {
      report.skipped.push('scenarios 1 and 2 did not run');
      return report;
    }
    const rows: string[][] = [];
    for (const framework of ['adk', 'google-adk', 'openai-agents'] as const) {
      const a = resultOf(long, framework)?.peakRssBytes ?? Number.NaN;
      const b = resultOf(concurrent, framework)?.peakRssBytes ?? Number.NaN;
      rows.push([frameworkLabels[framework], fmtBytes(a), fmtBytes(b)]);
    }
    report.tables.push({
      caption: 'Peak resident set size of the process that ran the scenario (one fresh process each).',
      headers: ['framework', 'peak RSS, long session', 'peak RSS, concurrency'],
      rows,
    });
    for (const [mode, outcomes] of [
      ['long session', long],
      ['concurrency', concurrent],
    ] as const) {
      const ours = resultOf(outcomes, 'adk')?.peakRssBytes;
      for (const rival of ['google-adk', 'openai-agents'] as const) {
        const theirs = resultOf(outcomes, rival)?.peakRssBytes;
        const ratio = ours && theirs ? theirs / ours : Number.NaN;
        report.checks.push({
          scenario: report.title,
          label: `${mode}: ${frameworkLabels[rival]} RSS ÷ ours`,
          target: '(no target)',
          measured: fmtRatio(ratio),
          pass: undefined,
        });
      }
    }
    return report;
  },
};
