import { isPlainObject } from './wire.js';
import { toYaml } from './yaml-file.js';

export interface Difference {
  /** Where the values first differ: `contents[2].parts[0].text` (`$` for the whole value). */
  path: string;
  recorded: unknown;
  actual: unknown;
}

function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path === '$' ? '' : path}[${key}]`;
  return path === '$' ? key : `${path}.${key}`;
}

/** The first place (depth first, keys in order) where two JSON values differ; undefined when equal. */
export function firstDifference(recorded: unknown, actual: unknown, path = '$'): Difference | undefined {
  if (Array.isArray(recorded) && Array.isArray(actual)) {
    const n = Math.max(recorded.length, actual.length);
    for (let i = 0; i < n; i++) {
      const d = firstDifference(recorded[i], actual[i], join(path, i));
      if (d) return d;
    }
    return undefined;
  }
  if (isPlainObject(recorded) && isPlainObject(actual)) {
    const keys = [...new Set([...Object.keys(recorded), ...Object.keys(actual)])].sort();
    for (const key of keys) {
      const d = firstDifference(recorded[key], actual[key], join(path, key));
      if (d) return d;
    }
    return undefined;
  }
  if (Object.is(recorded, actual)) return undefined;
  return { path, recorded, actual };
}

/** A unified diff of two texts (recorded → actual), with `context` lines around each change. */
export function unifiedDiff(recorded: string, actual: string, context = 3): string {
  const a = recorded.split('\n');
  const b = actual.split('\n');
  // Longest common subsequence table, from the end; the files compared are small (one event, one request).
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      (lcs[i] as number[])[j] =
        a[i] === b[j]
          ? ((lcs[i + 1] as number[])[j + 1] as number) + 1
          : Math.max((lcs[i + 1] as number[])[j] as number, (lcs[i] as number[])[j + 1] as number);
  const lines: Array<{ op: ' ' | '-' | '+'; text: string }> = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push({ op: ' ', text: a[i] as string });
      i++;
      j++;
    } else if (
      i < a.length &&
      (j >= b.length || ((lcs[i + 1] as number[])[j] as number) >= ((lcs[i] as number[])[j + 1] as number))
    ) {
      lines.push({ op: '-', text: a[i] as string });
      i++;
    } else {
      lines.push({ op: '+', text: b[j] as string });
      j++;
    }
  }
  const keep = lines.map(() => false);
  lines.forEach((line, k) => {
    if (line.op === ' ') return;
    for (let m = Math.max(0, k - context); m <= Math.min(lines.length - 1, k + context); m++) keep[m] = true;
  });
  const out = ['--- recorded', '+++ actual'];
  let skipped = false;
  lines.forEach((line, k) => {
    if (!keep[k]) {
      if (!skipped) out.push('@@');
      skipped = true;
      return;
    }
    skipped = false;
    out.push(`${line.op}${line.text}`);
  });
  return out.join('\n');
}

/**
 * Says where two values first differ and shows the change as a diff of their YAML, so a reader
 * sees the recorded and the actual lines side by side.
 */
export function describeDifference(what: string, recorded: unknown, actual: unknown): string | undefined {
  const d = firstDifference(recorded, actual);
  if (!d) return undefined;
  const recordedText = toYaml(recorded ?? null).trimEnd();
  const actualText = toYaml(actual ?? null).trimEnd();
  return `${what} differs first at ${d.path}:\n\`\`\`diff\n${unifiedDiff(recordedText, actualText)}\n\`\`\``;
}
