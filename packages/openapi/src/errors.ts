import { AdkError, type AdkErrorOptions } from '@adk/core';

/**
 * The OpenAPI document cannot be used: not JSON/YAML, not OpenAPI 3.0/3.1, invalid against the
 * schema, or a `$ref` that points nowhere. `path` names the place in the document (a JSON pointer
 * such as `#/paths/~1pets/get`), when known.
 */
export class OpenApiSpecError extends AdkError {
  readonly path: string | undefined;

  constructor(message: string, options: AdkErrorOptions & { path?: string } = {}) {
    super('OPENAPI_SPEC', message, {
      ...options,
      details: { ...options.details, ...(options.path ? { path: options.path } : {}) },
    });
    this.path = options.path;
  }
}

/** A JSON pointer (`/paths/~1pets/get`) as a readable path (`paths["/pets"].get`). */
export function readablePath(pointer: string): string {
  const segments = pointer
    .replace(/^#?\/?/, '')
    .split('/')
    .filter((s) => s !== '')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = '';
  for (const s of segments) {
    if (/^\d+$/.test(s)) out += `[${s}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(s)) out += out ? `.${s}` : s;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out || '(root)';
}
