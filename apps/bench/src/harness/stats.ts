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

/**
 * A percentile bootstrap interval of `statistic` over `values`: the sample is drawn again with
 * replacement `resamples` times and the statistic's `(1 - level) / 2` and `(1 + level) / 2`
 * quantiles are returned. The draws come from a seeded generator, so one sample always gives the
 * same interval. NaN bounds for an empty sample.
 */
export function bootstrapInterval(
  values: readonly number[],
  statistic: (sample: readonly number[]) => number,
  options: { level?: number; resamples?: number; seed?: number } = {},
): [number, number] {
  if (values.length === 0) return [Number.NaN, Number.NaN];
  const level = options.level ?? 0.9;
  const resamples = options.resamples ?? 2000;
  let state = (options.seed ?? 0x9e3779b9) >>> 0;
  // mulberry32: a small, well-spread 32-bit generator.
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const estimates: number[] = [];
  const sample = new Array<number>(values.length);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < values.length; i++)
      sample[i] = values[Math.floor(random() * values.length)] as number;
    estimates.push(statistic(sample));
  }
  return [percentile(estimates, ((1 - level) / 2) * 100), percentile(estimates, ((1 + level) / 2) * 100)];
}
