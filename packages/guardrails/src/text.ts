import type { Content, GuardrailFinding, GuardrailResult, GuardrailSubject } from '@adk/core';

/** The value a check looks at: content for input and output, arguments or a result for tools. */
export function subjectValue(subject: GuardrailSubject): Content | Record<string, unknown> {
  if (subject.point === 'input' || subject.point === 'output') return subject.content;
  return subject.point === 'toolInput' ? subject.args : subject.result;
}

/**
 * Every string of a value through `fn` (texts of a content's parts — never thoughts' signatures or
 * inline bytes —, argument and result values), copying only what changed.
 */
export function mapStrings(value: unknown, fn: (text: string) => string): unknown {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const mapped = mapStrings(item, fn);
      if (mapped !== item) {
        copy ??= value.slice();
        copy[i] = mapped;
      }
    }
    return copy ?? value;
  }
  if (value !== null && typeof value === 'object') {
    let copy: Record<string, unknown> | undefined;
    for (const key in value) {
      if (SKIPPED_KEYS.has(key)) continue;
      const item = (value as Record<string, unknown>)[key];
      const mapped = mapStrings(item, fn);
      if (mapped !== item) {
        copy ??= { ...(value as Record<string, unknown>) };
        copy[key] = mapped;
      }
    }
    return copy ?? value;
  }
  return value;
}

/** Fields that hold no text a person wrote (bytes, signatures, ids). */
const SKIPPED_KEYS = new Set(['inlineData', 'fileData', 'thoughtSignature', 'id', 'role', 'mimeType']);

/** Every string of a value, in order (for checks that only read). */
export function collectStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, out);
  else if (value !== null && typeof value === 'object')
    for (const key in value) {
      if (!SKIPPED_KEYS.has(key)) collectStrings((value as Record<string, unknown>)[key], out);
    }
  return out;
}

/** Adds counts per entity. */
export class FindingCounter {
  private readonly counts = new Map<string, number>();
  add(entity: string, n = 1): void {
    this.counts.set(entity, (this.counts.get(entity) ?? 0) + n);
  }
  get size(): number {
    return this.counts.size;
  }
  list(): GuardrailFinding[] {
    return [...this.counts].map(([entity, count]) => ({ entity, count }));
  }
  entities(): string[] {
    return [...this.counts.keys()];
  }
}

/** A rewrite of the subject's value, or a pass when nothing changed. */
export function rewriteOrPass(
  original: unknown,
  rewritten: unknown,
  findings: FindingCounter,
): GuardrailResult | undefined {
  if (rewritten === original || findings.size === 0) return undefined;
  return { action: 'rewrite', value: rewritten as Content, findings: findings.list() };
}
