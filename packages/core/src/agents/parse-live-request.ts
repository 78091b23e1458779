import { ValidationError } from '../errors/errors.js';
import type { InlineData } from '../events/content.js';
import { eventSchemas } from '../events/schemas.js';
import { isPlainObject, parseJson } from '../utils/json.js';
import { formatIssues } from '../utils/zod.js';
import type { LiveRequest } from './live-request-queue.js';

/** Part keys of adk-python's JSON (snake_case) and their camelCase names; nested user data is kept as is. */
const PART_KEYS: Record<string, string> = {
  inline_data: 'inlineData',
  file_data: 'fileData',
  function_call: 'functionCall',
  function_response: 'functionResponse',
  executable_code: 'executableCode',
  code_execution_result: 'codeExecutionResult',
  thought_signature: 'thoughtSignature',
};
const INNER_KEYS: Record<string, string> = {
  mime_type: 'mimeType',
  display_name: 'displayName',
  file_uri: 'fileUri',
  will_continue: 'willContinue',
};
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

function renameKeys(value: unknown, names: Record<string, string>): unknown {
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === null) continue; // pydantic writes unset fields as null
    out[names[key] ?? key] = v;
  }
  return out;
}

function normalizePart(part: unknown): unknown {
  const renamed = renameKeys(part, PART_KEYS);
  if (!isPlainObject(renamed)) return renamed;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(renamed)) {
    // Only the framing of a part is renamed: function args and responses are the user's data.
    out[key] = key === 'text' || key === 'thought' ? v : renameKeys(v, INNER_KEYS);
  }
  return out;
}

function fail(message: string): never {
  throw new ValidationError(`Invalid live request: ${message}`);
}

function parseBlob(value: unknown): InlineData {
  const blob = renameKeys(value, INNER_KEYS);
  if (!isPlainObject(blob)) fail('blob must be an object with mimeType and data');
  const { mimeType, data } = blob;
  if (typeof mimeType !== 'string' || mimeType === '') fail('blob.mimeType must be a non-empty string');
  if (typeof data !== 'string' || !BASE64.test(data)) fail('blob.data must be base64 text');
  return { mimeType, data };
}

/**
 * Parses one client frame of a live session — JSON text or a parsed value — into a `LiveRequest`.
 * Accepts adk-python's shape (snake_case, unset fields as null, `close: false`) and camelCase; the
 * frame must carry exactly one of `content`, `blob`, `activityStart`, `activityEnd`, `close: true`.
 * Anything else is a `ValidationError` that says what is wrong.
 */
export function parseLiveRequest(frame: unknown): LiveRequest {
  const value = typeof frame === 'string' ? parseJson(frame, 'live request JSON') : frame;
  if (!isPlainObject(value)) fail('a frame must be a JSON object');
  const fields = renameKeys(value, {
    activity_start: 'activityStart',
    activity_end: 'activityEnd',
  }) as Record<string, unknown>;
  const present = Object.keys(fields).filter((k) => !(k === 'close' && fields[k] === false));
  const known = ['content', 'blob', 'activityStart', 'activityEnd', 'close'];
  const unknown = present.filter((k) => !known.includes(k));
  if (unknown.length > 0) fail(`unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`);
  if (present.length !== 1)
    fail(`a frame carries exactly one of ${known.join(', ')} (got ${present.join(', ') || 'none'})`);
  const key = present[0] as string;
  const v = fields[key];
  switch (key) {
    case 'close':
      if (v !== true) fail('close must be true or false');
      return { close: true };
    case 'activityStart':
    case 'activityEnd':
      if (!isPlainObject(v)) fail(`${key} must be an object`);
      return { [key]: {} };
    case 'blob':
      return { blob: parseBlob(v) };
    default: {
      if (!isPlainObject(v)) fail('content must be an object with parts');
      const parts = Array.isArray(v.parts) ? v.parts.map(normalizePart) : v.parts;
      const parsed = eventSchemas().content.safeParse({ role: v.role ?? 'user', parts });
      if (!parsed.success) fail(`content: ${formatIssues(parsed.error.issues)}`);
      if (parsed.data.parts.length === 0) fail('content.parts is empty');
      for (const p of parsed.data.parts)
        if (p.inlineData && !BASE64.test(p.inlineData.data))
          fail('content inlineData.data must be base64 text');
      return { content: parsed.data };
    }
  }
}
