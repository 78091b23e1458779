// Python's rendering of JSON, which ADK's texts embed: kept apart from the prompt texts, which the
// agent loop loads up front, since only output schemas, guardrails and artifacts use it.

/**
 * Python's `json.dumps` with its defaults (`", "` and `": "` separators, ASCII only); with
 * `ensureAscii: false`, non-ASCII characters are kept as they are (`ensure_ascii=False`).
 */
export function pythonJsonDumps(value: unknown, options: { ensureAscii?: boolean } = {}): string {
  const ascii = options.ensureAscii ?? true;
  const json = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(json).join(', ')}]`;
    if (v !== null && typeof v === 'object')
      return `{${Object.entries(v as Record<string, unknown>)
        .map(([k, x]) => `${json(k)}: ${json(x)}`)
        .join(', ')}}`;
    const text = JSON.stringify(v) ?? 'null';
    return ascii
      ? text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
      : text;
  };
  return json(value);
}
