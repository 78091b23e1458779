import { isPlainObject } from '@adk/core';
import { type HttpClientOptions, isApiCallError, send } from '@adk/core/http';
import { OpenApiSpecError, readablePath } from './errors.js';

/** An OpenAPI document: an object, JSON or YAML text, or the URL it is served at. */
export type OpenApiSource = Record<string, unknown> | string | URL;

/** A dereferenced OpenAPI 3.0/3.1 document (kept loose: any extension fields pass through). */
export interface OpenApiDocument {
  openapi: string;
  info?: { title?: string; version?: string; description?: string };
  servers?: { url: string; variables?: Record<string, { default?: string }> }[];
  paths?: Record<string, Record<string, unknown>>;
  components?: { securitySchemes?: Record<string, Record<string, unknown>> } & Record<string, unknown>;
  security?: Record<string, string[]>[];
  [key: string]: unknown;
}

export interface LoadedDocument {
  document: OpenApiDocument;
  /** Where the document came from, when it was a URL (relative server URLs resolve against it). */
  url: string | undefined;
}

function isUrl(value: string): boolean {
  return /^https?:\/\/\S+$/i.test(value.trim());
}

/** Parses JSON or YAML text; syntax errors name the line and column. */
async function parseText(text: string, where: string): Promise<Record<string, unknown>> {
  const trimmed = text.trim();
  let value: unknown;
  if (trimmed.startsWith('{')) {
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      throw new OpenApiSpecError(`${where} is not valid JSON: ${(error as Error).message}`, { cause: error });
    }
  } else {
    const { parse, YAMLParseError } = await import('yaml');
    try {
      value = parse(text);
    } catch (error) {
      const at =
        error instanceof YAMLParseError && error.linePos
          ? ` at line ${error.linePos[0].line}, column ${error.linePos[0].col}`
          : '';
      throw new OpenApiSpecError(
        `${where} is not valid YAML${at}: ${(error as Error).message.split('\n')[0]}`,
        {
          cause: error,
        },
      );
    }
  }
  if (!isPlainObject(value)) throw new OpenApiSpecError(`${where} is not an object`, { path: '#' });
  return value;
}

interface AjvDetail {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** A schema validation error of the parser → our error naming the first failing place. */
function validationError(error: unknown): OpenApiSpecError {
  const e = error as { message?: string; details?: AjvDetail[]; name?: string; $ref?: string };
  const details = Array.isArray(e.details) ? e.details : [];
  if (details.length > 0) {
    // The most specific place first: the deepest path with a "required"/"type" style complaint.
    const first = [...details].sort(
      (a, b) => (b.instancePath ?? '').length - (a.instancePath ?? '').length,
    )[0];
    const seen = new Set<string>();
    const lines: string[] = [];
    for (const d of details) {
      const line = `${readablePath(d.instancePath ?? '')}: ${d.message ?? 'invalid'}`;
      if (!seen.has(line)) lines.push(line);
      seen.add(line);
    }
    const pointer = `#${first?.instancePath ?? ''}`;
    return new OpenApiSpecError(
      `Invalid OpenAPI document at ${readablePath(first?.instancePath ?? '')} (${pointer}): ${first?.message ?? 'invalid'}${
        lines.length > 1 ? `\n  ${lines.slice(0, 8).join('\n  ')}` : ''
      }`,
      { path: pointer, cause: error },
    );
  }
  const message = e.message ?? String(error);
  const ref = /\$ref pointer "([^"]+)"/.exec(message)?.[1] ?? /"(#\/[^"]*)"/.exec(message)?.[1];
  return new OpenApiSpecError(
    `Invalid OpenAPI document: ${message}`,
    ref ? { path: ref.startsWith('#') ? ref : `#${ref}`, cause: error } : { cause: error },
  );
}

/**
 * Loads, validates and dereferences an OpenAPI 3.0/3.1 document with `@apidevtools/swagger-parser`
 * (loaded on first use). Every failure is an {@link OpenApiSpecError}.
 */
export async function loadOpenApiDocument(
  source: OpenApiSource,
  http: HttpClientOptions & { signal?: AbortSignal } = {},
): Promise<LoadedDocument> {
  let url: string | undefined;
  let raw: Record<string, unknown>;
  if (source instanceof URL || (typeof source === 'string' && isUrl(source))) {
    url = String(source).trim();
    let text: string;
    try {
      const response = await send(
        { ...http, url, method: 'GET', apiName: 'The OpenAPI document server' },
        [],
        'application/json, application/yaml, text/yaml, */*',
      );
      text = await response.text();
    } catch (error) {
      const why = isApiCallError(error) ? error.message : String(error);
      throw new OpenApiSpecError(`Could not fetch the OpenAPI document at ${url}: ${why}`, { cause: error });
    }
    raw = await parseText(text, `The OpenAPI document at ${url}`);
  } else if (typeof source === 'string') {
    raw = await parseText(source, 'The OpenAPI document');
  } else {
    // A copy: the parser dereferences in place.
    raw = JSON.parse(JSON.stringify(source)) as Record<string, unknown>;
  }
  const version = raw.openapi;
  if (typeof version !== 'string' || !/^3\.[01]\./.test(version)) {
    const found =
      typeof raw.swagger === 'string' ? `Swagger ${raw.swagger}` : JSON.stringify(version ?? null);
    throw new OpenApiSpecError(`Only OpenAPI 3.0 and 3.1 documents are supported (openapi: found ${found})`, {
      path: '#/openapi',
    });
  }
  const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
  // The parser rewrites relative server URLs against the document URL but loses its port: keep ours.
  const servers =
    raw.servers === undefined ? undefined : (JSON.parse(JSON.stringify(raw.servers)) as unknown);
  let document: unknown;
  try {
    // validate() also dereferences; external refs resolve relative to the document's URL. A
    // document from the network may not read this machine's files through `file:` refs.
    document = url
      ? await SwaggerParser.validate(url, raw as never, { resolve: { file: false } })
      : await SwaggerParser.validate(raw as never);
  } catch (error) {
    throw validationError(error);
  }
  const result = document as OpenApiDocument;
  if (servers !== undefined) result.servers = servers as OpenApiDocument['servers'];
  return { document: result, url };
}
