import { frameworkLabels } from '../frameworks/types.js';
import { fmt, fmtMs, fmtRatio } from '../harness/format.js';
import { percentile } from '../harness/stats.js';
import { newReport, type Scenario } from '../harness/types.js';
import { resultOf, runOnEveryFramework, turnsPerSecond } from './agent-loop-runs.js';

export const concurrency: Scenario = {
  id: 'concurrency',
  title: '2. Concurrency',
  async run(config) {
    const report = newReport(this.id, this.title);
    const sessions = config.quick ? 5 : 50;
    const turns = config.quick ? 4 : 20;
    const outcomes = await runOnEveryFramework(config, report, {
      mode: 'concurrent',
      turns,
      sessions,
      warmupTurns: config.quick ? 2 : 20,
      // One whole round first: the measured round (about 0.1 s for us, 1–2 s for the rivals) then
      // compares steady states, not how far each JIT got in its first tenth of a second.
      warmupRounds: config.quick ? 0 : 1,
      store: 'memory',
    });
    const rows: string[][] = [];
    for (const outcome of outcomes) {
      const result = outcome.result;
      if (!result) continue;
      rows.push([
        frameworkLabels[outcome.framework],
        fmt(turnsPerSecond(result.turns, result.totalMs)),
        fmtMs(percentile(result.turnMs, 50)),
        fmtMs(percentile(result.turnMs, 99)),
      ]);
    }
    report.tables.push({
      caption: `${sessions} in-memory sessions × ${turns} turns, all sessions at once, measured after one unmeasured round of the same work on other sessions (every framework alike).`,
      headers: ['framework', 'turns/s', 'p50 turn latency', 'p99 turn latency'],
      rows,
    });
    const rate = (framework: 'adk' | 'google-adk' | 'openai-agents') => {
      const result = resultOf(outcomes, framework);
      return result ? turnsPerSecond(result.turns, result.totalMs) : Number.NaN;
    };
    for (const rival of ['google-adk', 'openai-agents'] as const) {
      const ratio = rate('adk') / rate(rival);
      report.checks.push({
        scenario: report.title,
        label: `turns/s vs ${frameworkLabels[rival]}`,
        target: '≥ 10×',
        measured: fmtRatio(ratio),
        pass: Number.isFinite(ratio) ? ratio >= 10 : undefined,
        ratio: { value: ratio, target: 10, chartLabel: `2 Concurrency vs ${frameworkLabels[rival]}` },
      });
    }
    return report;
  },
};
