import { formatIssues, type SchemaLike, ValidationError } from '@adk/core';
import { ServerError } from '../server/errors.js';

/** Whether a Content-Type names JSON (absent counts: curl without -H and old clients send none). */
function isJsonType(contentType: string | null): boolean {
  if (!contentType) return true;
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || type.endsWith('+json');
}

/** Reads the body as text, refusing more than `limit` bytes (before or while reading). */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) {
    throw new ServerError('PAYLOAD_TOO_LARGE', `Request body is larger than ${limit} bytes`);
  }
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let result: Awaited<ReturnType<typeof reader.read>>;
    try {
      result = await reader.read();
    } catch (error) {
      throw new ServerError('BAD_REQUEST', 'The request body could not be read', { cause: error });
    }
    if (result.done) break;
    size += result.value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new ServerError('PAYLOAD_TOO_LARGE', `Request body is larger than ${limit} bytes`);
    }
    chunks.push(result.value);
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    return decoder.decode(Buffer.concat(chunks));
  } catch {
    throw new ServerError('BAD_REQUEST', 'Request body is not valid UTF-8');
  }
}

/** Deepest nesting of arrays and objects accepted in a body (validators recurse; keep them safe). */
export const MAX_JSON_DEPTH = 100;

/** Throws when `value` nests deeper than `max` (checked without recursion). */
function assertDepth(value: unknown, max: number): void {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth >= max)
      throw new ServerError('BAD_REQUEST', `Request body is nested deeper than ${max} levels`);
    for (const child of Array.isArray(current) ? current : Object.values(current))
      stack.push([child, depth + 1]);
  }
}

/**
 * The JSON body, or `undefined` when there is none (empty body). Rejects non-JSON content types
 * (415: also keeps cross-site `text/plain` form posts out), oversized bodies (413) and bad JSON (400).
 */
export async function readJson(request: Request, limit: number): Promise<unknown> {
  if (!isJsonType(request.headers.get('content-type'))) {
    throw new ServerError(
      'UNSUPPORTED_MEDIA_TYPE',
      'Request bodies must be JSON (Content-Type: application/json)',
    );
  }
  const text = await readBodyText(request, limit);
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new ServerError('BAD_REQUEST', 'Request body is not valid JSON');
  }
  assertDepth(value, MAX_JSON_DEPTH);
  return value;
}

/** Validates with a (lazy) schema; failures are 422s that list every issue. */
export function validate<T>(schema: SchemaLike<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ValidationError(`Invalid ${what}: ${formatIssues(parsed.error.issues)}`);
  return parsed.data;
}
