import { frameworkLabels } from '../frameworks/types.js';
import { fmt, fmtMs, fmtRatio } from '../harness/format.js';
import { sum } from '../harness/stats.js';
import { newReport, type Scenario } from '../harness/types.js';
import { runOnEveryFramework, turnsPerSecond } from './agent-loop-runs.js';

export const longSession: Scenario = {
  id: 'long-session',
  title: '1. Long session',
  async run(config) {
    const report = newReport(this.id, this.title);
    const turns = config.quick ? 20 : 1000;
    const window = Math.min(100, Math.floor(turns / 4));
    const outcomes = await runOnEveryFramework(config, report, {
      mode: 'long',
      turns,
      sessions: 1,
      warmupTurns: config.quick ? 2 : 20,
      store: 'memory',
    });
    const rates = new Map<string, { overall: number; first: number; last: number }>();
    const rows: string[][] = [];
    for (const outcome of outcomes) {
      const result = outcome.result;
      if (!result) continue;
      const first = turnsPerSecond(window, sum(result.turnMs.slice(0, window)));
      const last = turnsPerSecond(window, sum(result.turnMs.slice(-window)));
      const overall = turnsPerSecond(result.turns, result.totalMs);
      rates.set(outcome.framework, { overall, first, last });
      rows.push([
        frameworkLabels[outcome.framework],
        fmt(overall),
        fmt(first),
        fmt(last),
        fmtRatio(last / first),
        fmtMs(result.turnMs.at(-1) ?? Number.NaN),
        String(result.lastRequestItems),
      ]);
    }
    report.tables.push({
      caption: `One in-memory session, ${turns} turns (after a warm-up session).`,
      headers: [
        'framework',
        'turns/s overall',
        `turns/s first ${window}`,
        `turns/s last ${window}`,
        'last ÷ first',
        'last turn',
        'items in the last model request',
      ],
      rows,
    });
    const ours = rates.get('adk');
    const google = rates.get('google-adk');
    const openai = rates.get('openai-agents');
    const vsGoogle = ours && google ? ours.overall / google.overall : Number.NaN;
    report.checks.push({
      scenario: report.title,
      label: 'turns/s vs @google/adk',
      target: '≥ 50×',
      measured: fmtRatio(vsGoogle),
      pass: Number.isFinite(vsGoogle) ? vsGoogle >= 50 : undefined,
      ratio: { value: vsGoogle, target: 50, chartLabel: '1 Long session vs @google/adk' },
    });
    const vsOpenAi = ours && openai ? ours.overall / openai.overall : Number.NaN;
    report.checks.push({
      scenario: report.title,
      label: 'turns/s vs @openai/agents',
      target: '(no target)',
      measured: fmtRatio(vsOpenAi),
      pass: undefined,
      ratio: { value: vsOpenAi, target: Number.NaN, chartLabel: '1 Long session vs @openai/agents' },
    });
    const decay = ours ? ours.last / ours.first : Number.NaN;
    report.checks.push({
      scenario: report.title,
      label: `last ${window} turns vs first ${window} (ours)`,
      target: '≥ 0.33×',
      measured: fmtRatio(decay),
      pass: Number.isFinite(decay) ? decay >= 1 / 3 : undefined,
    });
    return report;
  },
};
