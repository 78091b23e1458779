/**
 * ADK's YAML files hold adk-python's pydantic models dumped with their field names (snake_case);
 * our wire and in-memory shapes are camelCase. Keys of the models are converted; the values of
 * user-data fields (state, tool arguments and results, JSON Schemas, metadata) are kept verbatim,
 * as pydantic keeps dictionary keys.
 */

/** Fields whose value is user data: the key is converted, the value is not. */
const OPAQUE = new Set([
  'state',
  'stateDelta',
  'artifactDelta',
  'args',
  'response',
  'customMetadata',
  'parameters',
  'parametersJsonSchema',
  'responseJsonSchema',
  'responseSchema',
  'requestedAuthConfigs',
  'requestedToolConfirmations',
  'output',
  'labels',
  'agentState',
  'setModelResponse',
]);

export function camelToSnake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export function snakeToCamel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function convert(
  value: unknown,
  rename: (key: string) => string,
  opaqueKey: (key: string) => boolean,
): unknown {
  if (Array.isArray(value)) return value.map((v) => convert(v, rename, opaqueKey));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    out[rename(key)] = opaqueKey(key) ? structuredClone(v) : convert(v, rename, opaqueKey);
  }
  return out;
}

/** Our camelCase shapes (events, sessions, requests, responses) as ADK's snake_case ones. */
export function toSnake(value: unknown): unknown {
  return convert(value, camelToSnake, (key) => OPAQUE.has(key));
}

/** ADK's snake_case shapes as our camelCase ones. */
export function toCamel(value: unknown): unknown {
  return convert(value, snakeToCamel, (key) => OPAQUE.has(snakeToCamel(key)));
}

/**
 * Drops what adk-python's files leave out as defaults: `null`s, `partial: false`, and empty
 * mappings of fields whose default is empty (`state_delta: {}`, `actions: {}`).
 */
export function pruneDefaults(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => pruneDefaults(v));
  if (!isPlainObject(value)) return value;
  if (key !== undefined && OPAQUE.has(snakeToCamel(key))) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || v === undefined) continue;
    if (k === 'partial' && v === false) continue;
    const pruned = pruneDefaults(v, k);
    if (isPlainObject(pruned) && Object.keys(pruned).length === 0 && DEFAULT_EMPTY.has(k)) continue;
    out[k] = pruned;
  }
  return out;
}

/** Mapping fields whose default is empty: left out of ADK's files when empty. */
const DEFAULT_EMPTY = new Set([
  'state',
  'state_delta',
  'artifact_delta',
  'requested_auth_configs',
  'requested_tool_confirmations',
  'custom_metadata',
  'config',
  'actions',
]);

export { isPlainObject };
