import { describe, expect, it } from 'vitest';
import { INJECTION_SAMPLES } from './__fixtures__/injection-samples.js';
import { PII_SAMPLES } from './__fixtures__/pii-samples.js';
import { injectionScore } from './injection.js';
import { detectPii } from './pii.js';

// Precision and recall of the deterministic detectors on the labelled sets of __fixtures__; the
// figures are printed (and quoted in the README).

function ratio(n: number, d: number): number {
  return d === 0 ? 1 : n / d;
}

describe('labelled sample sets', () => {
  it('PII: at least 200 samples; precision and recall per entity occurrence', () => {
    expect(PII_SAMPLES.length).toBeGreaterThanOrEqual(200);
    let tp = 0;
    let fp = 0;
    let fn = 0;
    const misses: string[] = [];
    for (const sample of PII_SAMPLES) {
      const found = new Set(detectPii(sample.text).map((m) => m.entity));
      for (const e of sample.expected) {
        if (found.has(e)) tp++;
        else {
          fn++;
          misses.push(`missed ${e}: ${sample.text}`);
        }
      }
      for (const e of found)
        if (!sample.expected.includes(e)) {
          fp++;
          misses.push(`false ${e}: ${sample.text}`);
        }
    }
    const precision = ratio(tp, tp + fp);
    const recall = ratio(tp, tp + fn);
    const positives = PII_SAMPLES.filter((s) => s.expected.length > 0).length;
    console.log(
      `PII samples: ${PII_SAMPLES.length} (${positives} positive, ${PII_SAMPLES.length - positives} negative); precision ${(precision * 100).toFixed(1)}%, recall ${(recall * 100).toFixed(1)}%`,
    );
    if (misses.length > 0) console.log(misses.join('\n'));
    expect(precision).toBeGreaterThanOrEqual(0.95);
    expect(recall).toBeGreaterThanOrEqual(0.95);
  });

  it('injection: at least 100 samples; precision and recall of the heuristics', () => {
    expect(INJECTION_SAMPLES.length).toBeGreaterThanOrEqual(100);
    let tp = 0;
    let fp = 0;
    let fn = 0;
    const misses: string[] = [];
    for (const sample of INJECTION_SAMPLES) {
      const flagged = injectionScore(sample.text).score >= 3;
      if (flagged && sample.injection) tp++;
      else if (flagged) {
        fp++;
        misses.push(`false positive: ${sample.text}`);
      } else if (sample.injection) {
        fn++;
        misses.push(`missed: ${sample.text}`);
      }
    }
    const precision = ratio(tp, tp + fp);
    const recall = ratio(tp, tp + fn);
    const positives = INJECTION_SAMPLES.filter((s) => s.injection).length;
    console.log(
      `Injection samples: ${INJECTION_SAMPLES.length} (${positives} injections, ${INJECTION_SAMPLES.length - positives} benign); precision ${(precision * 100).toFixed(1)}%, recall ${(recall * 100).toFixed(1)}%`,
    );
    if (misses.length > 0) console.log(misses.join('\n'));
    expect(precision).toBeGreaterThanOrEqual(0.9);
    expect(recall).toBeGreaterThanOrEqual(0.85);
  });
});
