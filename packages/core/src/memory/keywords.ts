import { tokenize } from './memory-service.js';

// Function words of a few languages; they carry no topic.
const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her him his how i if in ' +
    'into is it its just me my no not of on or our she so than that the their them then there these they this ' +
    'to too us was we were what when where which who why will with would you your yes ok okay also about ' +
    'le la les un une des et est en du de au aux il elle je tu nous vous ils que qui pas pour sur dans ' +
    'der die das ein eine und ist nicht ich du er sie es wir ihr mit von zu den dem im ' +
    'el los las y es un una por para con del al lo se que'
  ).split(' '),
);

/**
 * Whether a (case-folded) word is a function word of English, French, German or Spanish (`the`,
 * `und`, `que`…), or a one-letter Latin word or digit: words that carry no topic and that nearly
 * every text contains. Memory search leaves them out of a query that has other words.
 */
export function isFunctionWord(word: string): boolean {
  return STOPWORDS.has(word) || (word.length < 2 && /^[\p{Script=Latin}\p{N}]/u.test(word));
}

/**
 * Keywords of a text, for indexing: its word tokens without function words and one-letter words
 * (single characters of scripts written without spaces are kept), most frequent first, ties in
 * order of appearance; at most `max` (default 12).
 */
export function extractKeywords(text: string, max = 12): string[] {
  const counts = new Map<string, number>();
  for (const token of tokenize(text)) {
    if (isFunctionWord(token)) continue;
    counts.set(token, (counts.get(token) ?? 0) + 1);
  }
  return [...counts.entries()]
    .map(([token, count], index) => ({ token, count, index }))
    .sort((a, b) => b.count - a.count || a.index - b.index)
    .slice(0, max)
    .map((k) => k.token);
}

/** A content hash key of a memory's text: case, accents composed or not and spacing ignored. */
export function memoryTextKey(kind: string, text: string): string {
  return `${kind}:${tokenize(text).join(' ')}`;
}
