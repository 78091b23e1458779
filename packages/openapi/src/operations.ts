import { isPlainObject } from '@adk/core';
import type { OpenApiDocument } from './load-document.js';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** An OpenAPI parameter (dereferenced). */
export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  description?: string;
  required?: boolean;
  deprecated?: boolean;
  schema?: Record<string, unknown>;
  style?: string;
  explode?: boolean;
  allowReserved?: boolean;
  content?: Record<string, { schema?: Record<string, unknown> }>;
}

export interface OpenApiRequestBody {
  description?: string;
  required?: boolean;
  content: Record<string, { schema?: Record<string, unknown> }>;
}

/** One operation of the document, with the path-level parameters merged in. */
export interface OpenApiOperation {
  method: HttpMethod;
  path: string;
  operationId: string | undefined;
  summary: string | undefined;
  description: string | undefined;
  tags: string[];
  deprecated: boolean;
  parameters: OpenApiParameter[];
  requestBody: OpenApiRequestBody | undefined;
  /** Security requirements (alternatives); `[]` means none needed. */
  security: Record<string, string[]>[];
  /** JSON pointer of the operation in the document. */
  pointer: string;
}

function pointerSegment(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Header parameters the OpenAPI specification says to ignore: the body's media type, the accepted
 * responses and the security schemes set them (a model-supplied `Authorization` would replace the
 * credential).
 */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/** Every operation of a dereferenced document, in document order. */
export function listOperations(document: OpenApiDocument): OpenApiOperation[] {
  const out: OpenApiOperation[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    if (!isPlainObject(item)) continue;
    const shared = Array.isArray(item.parameters) ? (item.parameters as OpenApiParameter[]) : [];
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isPlainObject(op)) continue;
      const own = Array.isArray(op.parameters) ? (op.parameters as OpenApiParameter[]) : [];
      // Operation parameters override path-level ones with the same name and location.
      const parameters = [
        ...shared.filter((p) => !own.some((o) => o.name === p.name && o.in === p.in)),
        ...own,
      ].filter((p) => !(p.in === 'header' && IGNORED_HEADERS.has(String(p.name).toLowerCase())));
      out.push({
        method,
        path,
        operationId: typeof op.operationId === 'string' ? op.operationId : undefined,
        summary: typeof op.summary === 'string' ? op.summary : undefined,
        description: typeof op.description === 'string' ? op.description : undefined,
        tags: Array.isArray(op.tags) ? op.tags.filter((t): t is string => typeof t === 'string') : [],
        deprecated: op.deprecated === true,
        parameters,
        requestBody: isPlainObject(op.requestBody)
          ? (op.requestBody as unknown as OpenApiRequestBody)
          : undefined,
        security: Array.isArray(op.security)
          ? (op.security as Record<string, string[]>[])
          : (document.security ?? []),
        pointer: `#/paths/${pointerSegment(path)}/${method}`,
      });
    }
  }
  return out;
}

/** `listPets` / `list-pets` / `List Pets` → `list_pets`. */
export function toSnakeCase(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}

/**
 * The tool name of an operation, as ADK names them: the operationId in snake_case, else method and
 * path (`get_pets_pet_id`); at most 60 characters (the model vendors' limit is 64, leaving room).
 */
export function toolNameOf(op: OpenApiOperation): string {
  const base = op.operationId ? toSnakeCase(op.operationId) : toSnakeCase(`${op.method} ${op.path}`);
  return (base || op.method).slice(0, 60);
}

/** The first server URL with its variables filled with their defaults, resolved against `documentUrl`. */
export function serverUrlOf(document: OpenApiDocument, documentUrl: string | undefined): string | undefined {
  const server = document.servers?.[0];
  if (!server) return documentUrl ? new URL('/', documentUrl).toString() : undefined;
  let url = server.url;
  for (const [name, variable] of Object.entries(server.variables ?? {}))
    url = url.replaceAll(`{${name}}`, variable.default ?? '');
  if (/^https?:\/\//i.test(url)) return url;
  return documentUrl ? new URL(url, documentUrl).toString() : undefined;
}
