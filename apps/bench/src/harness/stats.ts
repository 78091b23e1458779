/** Nearest-rank percentile (p in 0..100) of an unsorted sample; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

/** Peak resident set size of this process so far, in bytes. */
export function peakRssBytes(): number {
  return process.resourceUsage().maxRSS * 1024;
}
