import type { Guardrail, GuardrailPoint } from '@adk/core';
import { FindingCounter, mapStrings, rewriteOrPass, subjectValue } from './text.js';

// Zero-width characters, bidi controls (Trojan Source) and Unicode tag characters (text hidden
// from readers but read by models: "ASCII smuggling").
const ZERO_WIDTH = /[\u200B-\u200D\u2060\u180E\uFEFF]/g;
const BIDI = /[\u200E\u200F\u061C\u202A-\u202E\u2066-\u2069]/g;
const TAGS = /[\u{E0000}-\u{E007F}]/gu;
const ANY = /[\u200B-\u200F\u2060\u180E\uFEFF\u061C\u202A-\u202E\u2066-\u2069]|[\u{E0000}-\u{E007F}]/u;

export interface UnicodeGuardrailOptions {
  name?: string;
  /** Also apply NFKC (full-width and look-alike compatibility forms to plain ones). Default false. */
  nfkc?: boolean;
  points?: readonly GuardrailPoint[];
}

/** Removes invisible characters from one text, counting them. */
export function normalizeText(text: string, found?: FindingCounter, nfkc = false): string {
  if (!ANY.test(text)) return nfkc ? text.normalize('NFKC') : text;
  let out = text.replace(ZERO_WIDTH, () => {
    found?.add('zero_width');
    return '';
  });
  out = out.replace(BIDI, () => {
    found?.add('bidi_control');
    return '';
  });
  out = out.replace(TAGS, () => {
    found?.add('tag_character');
    return '';
  });
  return nfkc ? out.normalize('NFKC') : out;
}

/** The unicode normaliser: strips zero-width, bidi-control and tag characters from every text. */
export function unicodeGuardrail(options: UnicodeGuardrailOptions = {}): Guardrail {
  const nfkc = options.nfkc ?? false;
  return {
    name: options.name ?? 'unicode',
    ...(options.points ? { points: options.points } : {}),
    check(subject) {
      const value = subjectValue(subject);
      const found = new FindingCounter();
      const rewritten = mapStrings(value, (t) => normalizeText(t, found, nfkc));
      if (nfkc && found.size === 0 && rewritten !== value)
        return { action: 'rewrite', value: rewritten as never, findings: [{ entity: 'nfkc', count: 1 }] };
      return rewriteOrPass(value, rewritten, found);
    },
  };
}
