// adk-python's eval models alias every field to camelCase and accept either spelling on input
// (pydantic `populate_by_name`); its files are written in snake_case, its HTTP answers in
// camelCase. These helpers convert keys, leaving user data (tool arguments, tool responses,
// session state) exactly as written.

/** Keys whose values are user data: never renamed inside. */
const OPAQUE = new Set([
  'args',
  'response',
  'state',
  'finalSessionState',
  'final_session_state',
  'stateDelta',
  'state_delta',
  'customMetadata',
  'custom_metadata',
  'responseSchema',
  'response_schema',
  'parameters',
  'toolInput',
  'tool_input',
]);

export function snakeToCamel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export function camelToSnake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function convert(value: unknown, rename: (key: string) => string, dropNulls: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => convert(v, rename, dropNulls));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (dropNulls && v === null) continue;
    out[rename(key)] = OPAQUE.has(key) ? v : convert(v, rename, dropNulls);
  }
  return out;
}

/**
 * Every key in camelCase (user data untouched); `null` fields dropped, since pydantic's
 * `Optional` treats null and absent alike. Already camelCase keys stay as they are.
 */
export function toCamelKeys(value: unknown): unknown {
  return convert(value, snakeToCamel, true);
}

/** Every key in snake_case (user data untouched), as adk-python writes its files. */
export function toSnakeKeys(value: unknown): unknown {
  return convert(value, camelToSnake, false);
}
