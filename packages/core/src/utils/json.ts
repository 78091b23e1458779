import { ValidationError } from '../errors/errors.js';

/** Parses untrusted JSON text; failures become a typed {@link ValidationError}. */
export function parseJson(text: string, what = 'JSON'): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const preview = text.length > 200 ? `${text.slice(0, 200)}…` : text;
    throw new ValidationError(
      `Invalid ${what}: ${(error as Error).message} (input: ${JSON.stringify(preview)})`,
      {
        cause: error,
      },
    );
  }
}

/** Like {@link parseJson} but returns undefined instead of throwing. */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The map's value for `key`, created with `make` on first use. */
export function getOrCreate<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}
