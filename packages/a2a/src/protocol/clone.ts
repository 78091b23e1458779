/**
 * A deep copy of JSON data (tasks, messages, configs). Several times faster than structuredClone
 * for the small objects a task store copies on every save and read; like JSON, it drops
 * `undefined` properties.
 */
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const out: Record<string, unknown> = {};
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = cloneJson(v);
  }
  return out as T;
}
