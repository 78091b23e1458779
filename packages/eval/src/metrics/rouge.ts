import { stemmer } from 'stemmer';

export interface RougeScore {
  precision: number;
  recall: number;
  fmeasure: number;
}

/**
 * Tokenizes as Google's `rouge-score` package does: lowercase, every run of characters other
 * than a-z and 0-9 becomes a space, split on spaces, and (with stemming) Porter-stem tokens
 * longer than 3 characters.
 */
export function rougeTokenize(text: string, useStemmer: boolean): string[] {
  const tokens = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  return useStemmer ? tokens.map((t) => (t.length > 3 ? stemmer(t) : t)) : tokens;
}

function counts(tokens: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

/** ROUGE-1 of `candidate` against `reference`: clipped unigram overlap, precision, recall, F1. */
export function rouge1(
  candidate: string,
  reference: string,
  options: { useStemmer?: boolean } = {},
): RougeScore {
  const useStemmer = options.useStemmer ?? true;
  const ref = counts(rougeTokenize(reference, useStemmer));
  const cand = counts(rougeTokenize(candidate, useStemmer));
  let overlap = 0;
  for (const [t, n] of cand) overlap += Math.min(n, ref.get(t) ?? 0);
  const candTotal = [...cand.values()].reduce((s, n) => s + n, 0);
  const refTotal = [...ref.values()].reduce((s, n) => s + n, 0);
  const precision = overlap / Math.max(candTotal, 1);
  const recall = overlap / Math.max(refTotal, 1);
  const fmeasure = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, fmeasure };
}

/** Whether most letters of `text` are Latin (adk-python only stems Latin-script text). */
export function isLatinScript(text: string): boolean {
  let letters = 0;
  let latin = 0;
  for (const ch of text) {
    if (/\p{L}/u.test(ch)) {
      letters++;
      if (/\p{Script=Latin}/u.test(ch)) latin++;
    }
  }
  return letters === 0 || latin / letters > 0.5;
}
