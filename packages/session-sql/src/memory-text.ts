import { isFunctionWord } from '@adk/core';

/**
 * The text form memory is indexed and searched in, the same on every dialect: NFKC, case-folded,
 * Latin/Greek/Cyrillic accents removed (so "café", "CAFE\u0301" and "cafe" meet), words made of
 * letters, marks and numbers separated by single spaces. Scripts written without spaces (Han,
 * Hiragana, Katakana, Thai, Hangul) become one word per character, and a query's run of such
 * characters is searched as a phrase.
 */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Hangul}]/u;

function fold(text: string): string {
  return (
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .normalize('NFKC')
      // Greek final sigma is the same letter as σ.
      .replace(/ς/g, 'σ')
  );
}

/** Words of a text; each entry is one word or, for unspaced scripts, the characters of a run. */
export function searchTerms(text: string): string[][] {
  const terms: string[][] = [];
  for (const match of fold(text).matchAll(WORD)) {
    const word = match[0];
    if (UNSPACED.test(word)) {
      // Split into characters, keeping runs of spaced-script letters inside the run together.
      const parts: string[] = [];
      let latin = '';
      for (const ch of word) {
        if (UNSPACED.test(ch)) {
          if (latin) parts.push(latin);
          latin = '';
          parts.push(ch);
        } else latin += ch;
      }
      if (latin) parts.push(latin);
      terms.push(parts);
    } else {
      terms.push([word]);
    }
  }
  return terms;
}

/** The normalised text stored in `search_text`. */
export function searchText(text: string): string {
  return searchTerms(text)
    .map((term) => term.join(' '))
    .join(' ');
}

/**
 * Distinct query terms, without function words (`the`, `what`, `did`…) when the query has other
 * words: they match nearly every stored turn, so ranking them cost a search time in proportion to
 * the whole history while their weight in the ranking is close to nothing.
 */
export function queryTerms(query: string): string[][] {
  const seen = new Set<string>();
  const terms: string[][] = [];
  for (const term of searchTerms(query)) {
    const key = term.join(' ');
    if (seen.has(key)) continue;
    seen.add(key);
    terms.push(term);
  }
  const topical = terms.filter((term) => term.length > 1 || !isFunctionWord(term[0] as string));
  return topical.length > 0 ? topical : terms;
}

/** A Postgres tsquery matching any term: `'hiking' | 'alps' | '東' <-> '京'`. */
export function tsQuery(terms: string[][]): string {
  const lexeme = (word: string) => `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
  return terms.map((term) => term.map(lexeme).join(' <-> ')).join(' | ');
}

/** An FTS5 query matching any term: `"hiking" OR "alps" OR "東 京"`. */
export function ftsQuery(terms: string[][]): string {
  return terms.map((term) => `"${term.join(' ').replace(/"/g, '""')}"`).join(' OR ');
}
