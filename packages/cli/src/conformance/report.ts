import type { ConformanceRun } from './run-cases.js';

function cell(text: string | undefined): string {
  return (text ?? '').replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
}

/**
 * A Markdown report of a run: a summary per streaming mode, pass/fail per case, and for each
 * failure its first difference as a diff (recorded lines `-`, actual lines `+`).
 */
export function markdownReport(run: ConformanceRun, now: Date = new Date()): string {
  const lines: string[] = [];
  lines.push('# ADK conformance report', '');
  lines.push(`- Date: ${now.toISOString()}`);
  lines.push(
    `- Mode: ${run.mode}${run.mode === 'replay' ? ` (model requests compared ${run.requestComparison})` : ''}`,
  );
  lines.push(`- Server: @adk/server ${run.version} serving ${run.agentsDir}`);
  lines.push(`- Cases from: ${run.testPaths.join(', ')}`, '');
  const modes = [...new Set(run.results.map((r) => r.streaming))];
  lines.push(
    '## Summary',
    '',
    '| Streaming mode | Total | Passed | Failed | Skipped |',
    '| --- | --- | --- | --- | --- |',
  );
  for (const mode of modes) {
    const of = run.results.filter((r) => r.streaming === mode);
    const count = (status: string) => of.filter((r) => r.status === status).length;
    lines.push(
      `| ${mode} | ${of.length} | ${count('passed') + count('recorded')} | ${count('failed')} | ${count('skipped')} |`,
    );
  }
  lines.push('', '## Cases', '', '| Case | Streaming | Result | Description |', '| --- | --- | --- | --- |');
  for (const r of run.results) {
    const mark =
      r.status === 'failed'
        ? '✗ FAIL'
        : r.status === 'skipped'
          ? '– skipped'
          : r.status === 'recorded'
            ? '● recorded'
            : '✓ PASS';
    lines.push(`| ${cell(`${r.category}/${r.name}`)} | ${r.streaming} | ${mark} | ${cell(r.description)} |`);
  }
  const failures = run.results.filter((r) => r.status === 'failed');
  if (failures.length > 0) {
    lines.push('', '## Failures');
    for (const r of failures)
      lines.push('', `### ${r.category}/${r.name} (${r.streaming})`, '', r.message ?? '');
  }
  lines.push('');
  return lines.join('\n');
}
