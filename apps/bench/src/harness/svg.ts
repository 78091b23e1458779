import type { Environment } from './environment.js';
import type { Check } from './types.js';

const escapeXml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/**
 * A horizontal bar chart of our speed ratios against the rivals, on a log scale from 0.1× to 1000×,
 * with each target marked. Hand-written SVG: no chart library.
 */
export function renderSvg(env: Environment, checks: Check[]): string {
  const bars = checks.filter((check) => check.ratio && Number.isFinite(check.ratio.value));
  const width = 940;
  const labelWidth = 300;
  const plotLeft = labelWidth + 10;
  const plotWidth = width - plotLeft - 150;
  const rowHeight = 30;
  const top = 64;
  const height = top + Math.max(1, bars.length) * rowHeight + 48;
  const minLog = -1;
  const maxLog = 3;
  const x = (ratio: number) => {
    const log = Math.min(maxLog, Math.max(minLog, Math.log10(ratio)));
    return plotLeft + ((log - minLog) / (maxLog - minLog)) * plotWidth;
  };
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12">`,
  );
  parts.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);
  parts.push(
    `<text x="16" y="24" font-size="16" font-weight="600">ADK for TypeScript: how many times faster than the rival (log scale)</text>`,
  );
  parts.push(
    `<text x="16" y="44" fill="#555">${escapeXml(`Node ${env.node} · ${env.cpu} (${env.cores} cores) · ${env.date}`)}</text>`,
  );
  const axisBottom = top + bars.length * rowHeight;
  for (let log = minLog; log <= maxLog; log++) {
    const tick = x(10 ** log);
    const strong = log === 0;
    parts.push(
      `<line x1="${tick}" y1="${top - 6}" x2="${tick}" y2="${axisBottom}" stroke="${strong ? '#333' : '#ddd'}" stroke-width="${strong ? 1.5 : 1}"/>`,
    );
    parts.push(
      `<text x="${tick}" y="${axisBottom + 16}" text-anchor="middle" fill="#555">${10 ** log}×</text>`,
    );
  }
  if (bars.length === 0) {
    parts.push(`<text x="${plotLeft}" y="${top + 18}" fill="#a00">no ratio was measured in this run</text>`);
  }
  bars.forEach((check, index) => {
    const ratio = check.ratio;
    if (!ratio) return;
    const y = top + index * rowHeight;
    const hasTarget = Number.isFinite(ratio.target);
    const color = !hasTarget ? '#7a8ca3' : ratio.value >= ratio.target ? '#2e8b57' : '#c0392b';
    const from = x(1);
    const to = x(ratio.value);
    parts.push(
      `<text x="${labelWidth}" y="${y + 19}" text-anchor="end">${escapeXml(ratio.chartLabel)}</text>`,
    );
    parts.push(
      `<rect x="${Math.min(from, to)}" y="${y + 6}" width="${Math.max(1, Math.abs(to - from))}" height="${rowHeight - 12}" fill="${color}" rx="2"/>`,
    );
    if (hasTarget) {
      const tx = x(ratio.target);
      parts.push(
        `<line x1="${tx}" y1="${y + 2}" x2="${tx}" y2="${y + rowHeight - 2}" stroke="#000" stroke-width="2" stroke-dasharray="3,2"/>`,
      );
    }
    const value = ratio.value < 10 ? ratio.value.toFixed(2) : ratio.value.toFixed(1);
    const textX = Math.max(from, to, hasTarget ? x(ratio.target) : 0) + 6;
    parts.push(
      `<text x="${textX}" y="${y + 19}" fill="#222">${value}×${hasTarget ? ` (target ${ratio.target}×)` : ''}</text>`,
    );
  });
  parts.push(
    `<text x="16" y="${height - 10}" fill="#555">green: target met · red: target missed · grey: no target · dashed line: target</text>`,
  );
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
