import {
  type EvalCaseResult,
  type EvalSetResult,
  evalStatusName,
  type Invocation,
} from '../eval-set/types.js';
import { textOf, toolCallsOf } from '../metrics/invocation-utils.js';
import type { EvaluateResult } from '../runner/evaluate.js';

function esc(value: unknown): string {
  return String(value ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

function fmt(score: number | null | undefined): string {
  return typeof score === 'number' ? score.toFixed(3) : '—';
}

function statusBadge(status: 1 | 2 | 3): string {
  const name = evalStatusName(status);
  return `<span class="badge ${name.toLowerCase()}">${name.replace('_', ' ')}</span>`;
}

function trajectory(invocation: Invocation | undefined): string {
  if (!invocation) return '<em>none</em>';
  const calls = toolCallsOf(invocation.intermediateData);
  if (calls.length === 0) return '<em>no tool calls</em>';
  return `<ol>${calls.map((c) => `<li><code>${esc(c.name)}(${esc(JSON.stringify(c.args ?? {}))})</code></li>`).join('')}</ol>`;
}

function caseSection(r: EvalCaseResult): string {
  const metrics = r.overallEvalMetricResults
    .map(
      (m) =>
        `<tr><td>${esc(m.metricName)}</td><td>${fmt(m.score)}</td><td>${esc(m.threshold)}</td><td>${statusBadge(m.evalStatus)}</td><td>${esc(
          (m.details as { error?: string; note?: string }).error ??
            (m.details as { note?: string }).note ??
            '',
        )}</td></tr>`,
    )
    .join('');
  const turns = r.evalMetricResultPerInvocation
    .map(
      (p, i) => `<div class="turn"><h4>Turn ${i + 1}</h4>
<p class="user"><b>User:</b> ${esc(textOf(p.actualInvocation.userContent))}</p>
<div class="sbs"><div><h5>Expected</h5>${trajectory(p.expectedInvocation)}<p>${esc(textOf(p.expectedInvocation?.finalResponse)) || '<em>—</em>'}</p></div>
<div><h5>Actual</h5>${trajectory(p.actualInvocation)}<p>${esc(textOf(p.actualInvocation.finalResponse)) || '<em>no final response</em>'}</p></div></div>
<p class="scores">${p.evalMetricResults.map((m) => `${esc(m.metricName)}: ${fmt(m.score)} ${statusBadge(m.evalStatus)}`).join(' · ')}</p></div>`,
    )
    .join('');
  return `<details class="case"${r.finalEvalStatus === 1 ? '' : ' open'}><summary>${statusBadge(r.finalEvalStatus)} <b>${esc(r.evalId)}</b>${
    r.runNumber ? ` <span class="run">run ${esc(r.runNumber)}</span>` : ''
  }</summary>
<table><thead><tr><th>metric</th><th>score</th><th>threshold</th><th>status</th><th>note</th></tr></thead><tbody>${metrics}</tbody></table>${turns}</details>`;
}

/**
 * A self-contained HTML page (inline CSS, no scripts, no external assets) with every case, its
 * metrics, and each turn's expected and actual trajectory and response side by side.
 */
export function renderHtmlReport(
  input: EvaluateResult | EvalSetResult[],
  options: { title?: string } = {},
): string {
  const sets = Array.isArray(input) ? input : input.evalSetResults;
  const summary = Array.isArray(input)
    ? ''
    : `<table class="summary"><thead><tr><th>eval set</th><th>case</th><th>pass rate</th><th>result</th></tr></thead><tbody>${input.cases
        .map(
          (c) =>
            `<tr><td>${esc(c.evalSetId)}</td><td>${esc(c.evalId)}</td><td>${c.passedRuns}/${c.runs} (${Math.round(c.passRate * 100)}%)</td><td>${
              c.passed ? statusBadge(1) : statusBadge(2)
            }</td></tr>`,
        )
        .join('')}</tbody></table>`;
  const title = options.title ?? 'Eval report';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1b1b1f;background:#fafafa}
h1{font-size:1.4rem}table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ddd;padding:.25rem .6rem;text-align:left}
.badge{border-radius:4px;padding:0 .4rem;font-size:.8rem;font-weight:600}.passed{background:#d7f5dd;color:#135c22}
.failed{background:#fde0e0;color:#8a1414}.not_evaluated{background:#eee;color:#555}
.case{background:#fff;border:1px solid #ddd;border-radius:6px;margin:.6rem 0;padding:.4rem .8rem}
.sbs{display:grid;grid-template-columns:1fr 1fr;gap:1rem}.sbs>div{background:#f4f4f8;padding:.3rem .6rem;border-radius:4px}
.run{color:#666}code{font-size:.85rem}
</style></head><body>
<h1>${esc(title)}</h1>
${summary}
${sets
  .map(
    (s) =>
      `<section><h2>Eval set ${esc(s.evalSetId)}</h2><p class="meta">${esc(s.evalSetResultId)}</p>${s.evalCaseResults.map(caseSection).join('')}</section>`,
  )
  .join('')}
</body></html>
`;
}
