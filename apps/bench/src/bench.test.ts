import { describe, expect, it } from 'vitest';
import { runBench, scenarios } from './bench.js';

// The quick mode proves the harness works end to end (every framework driven through the same
// script in fresh processes, reports rendered); its figures mean nothing and nothing is timed here.
// Eleven scenarios, each in fresh processes, take minutes on a loaded 2-core machine.
describe('pnpm bench --quick', () => {
  it('runs every scenario, or says why it skipped it, and renders the report and chart', async () => {
    const lines: string[] = [];
    const run = await runBench({ quick: true, log: (line) => lines.push(line) });

    expect(run.reports.map((report) => report.id)).toEqual(scenarios.map((scenario) => scenario.id));
    for (const report of run.reports) {
      const errors = report.notes.filter((note) => note.includes('**Error'));
      expect(errors, `${report.title}: ${errors.join('; ')}`).toEqual([]);
      // A scenario that measured nothing must say why.
      if (report.tables.length === 0) expect(report.skipped.length, report.title).toBeGreaterThan(0);
    }

    // The rivals are pinned dev dependencies, so the agent-loop scenarios always measure them.
    const long = run.reports.find((report) => report.id === 'long-session');
    const frameworks = long?.tables[0]?.rows.map((row) => row[0]);
    expect(frameworks).toEqual(expect.arrayContaining(['@google/adk', '@openai/agents']));

    for (const report of run.reports) expect(run.markdown).toContain(`## ${report.title}`);
    expect(run.markdown).toContain(`| Node | ${process.version} |`);
    expect(run.svg.startsWith('<svg')).toBe(true);
    expect(run.svg.trimEnd().endsWith('</svg>')).toBe(true);
  }, 600_000);
});
