import { describe, expect, it } from 'vitest';
import { isLatinScript, rouge1, rougeTokenize } from '../index.js';

describe('ROUGE-1 (as the rouge-score package computes it)', () => {
  it('tokenizes: lowercase, non-alphanumerics become spaces, Porter stems for tokens longer than 3', () => {
    expect(rougeTokenize('The cats, RUNNING! 24°C', true)).toEqual(['the', 'cat', 'run', '24', 'c']);
    expect(rougeTokenize('The cats, RUNNING! 24°C', false)).toEqual(['the', 'cats', 'running', '24', 'c']);
    // Non-Latin letters are not in [a-z0-9], so they vanish (as in rouge-score).
    expect(rougeTokenize('café 東京', false)).toEqual(['caf']);
  });

  it('scores by hand-checked examples', () => {
    // candidate: london has light rain todai(today)  → 5 tokens
    // reference: expect light rain in london        → 5 tokens
    // overlap {london, light, rain} = 3 → P = 3/5, R = 3/5, F = 0.6
    expect(rouge1('London has light rain today.', 'Expect light rain in London.').fmeasure).toBeCloseTo(
      0.6,
      12,
    );

    // Stemming: the cat(cats) are run(running) vs a cat run(runs): overlap {cat, run} = 2
    // P = 2/4, R = 2/3, F = 2·(1/2)(2/3) / (1/2 + 2/3) = 4/7
    const stemmed = rouge1('The cats are running', 'A cat runs');
    expect(stemmed.precision).toBeCloseTo(0.5, 12);
    expect(stemmed.recall).toBeCloseTo(2 / 3, 12);
    expect(stemmed.fmeasure).toBeCloseTo(4 / 7, 12);
    expect(rouge1('The cats are running', 'A cat runs', { useStemmer: false }).fmeasure).toBe(0);

    // Counts are clipped: "the" ×3 against one "the": overlap 1, P = 1/3, R = 1/2, F = 0.4
    expect(rouge1('the the the', 'the cat').fmeasure).toBeCloseTo(0.4, 12);
    // Case and punctuation do not matter.
    expect(rouge1('Hello, WORLD!!', 'hello world').fmeasure).toBe(1);
    expect(rouge1('', 'something').fmeasure).toBe(0);
  });

  it('detects Latin script the way adk-python decides whether to stem', () => {
    expect(isLatinScript('Olá, tudo bem?')).toBe(true);
    expect(isLatinScript('สวัสดีครับ')).toBe(false);
    expect(isLatinScript('123 !!')).toBe(true);
  });
});
