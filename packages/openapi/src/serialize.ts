import { isPlainObject } from '@adk/core';
import type { OpenApiParameter } from './operations.js';

// Parameter serialization (OpenAPI 3 "style" and "explode"): path simple/label/matrix, query
// form/spaceDelimited/pipeDelimited/deepObject, header simple, cookie form.

function scalar(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Query and path values are percent-encoded; `allowReserved` keeps RFC 3986 reserved characters. */
function encode(value: string, allowReserved = false): string {
  const encoded = encodeURIComponent(value);
  return allowReserved
    ? encoded.replace(/%(3A|2F|3F|23|5B|5D|40|21|24|26|27|28|29|2A|2B|2C|3B|3D)/gi, decodeURIComponent)
    : encoded;
}

function styleOf(param: OpenApiParameter): string {
  if (param.style) return param.style;
  return param.in === 'query' || param.in === 'cookie' ? 'form' : 'simple';
}

function explodeOf(param: OpenApiParameter): boolean {
  return param.explode ?? styleOf(param) === 'form';
}

/** A parameter described with `content` (e.g. application/json) is sent as that media type. */
function contentValue(param: OpenApiParameter, value: unknown): string | undefined {
  if (!param.content) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The text that replaces `{name}` in the path. */
export function serializePathParam(param: OpenApiParameter, value: unknown): string {
  const asContent = contentValue(param, value);
  if (asContent !== undefined) return encode(asContent);
  const style = styleOf(param);
  const explode = explodeOf(param);
  const name = param.name;
  if (Array.isArray(value)) {
    const items = value.map((v) => encode(scalar(v)));
    if (style === 'label') return `.${items.join(explode ? '.' : ',')}`;
    if (style === 'matrix')
      return explode ? items.map((i) => `;${name}=${i}`).join('') : `;${name}=${items.join(',')}`;
    return items.join(',');
  }
  if (isPlainObject(value)) {
    const entries = Object.entries(value).map(([k, v]) => [encode(k), encode(scalar(v))] as const);
    const pairs = explode ? entries.map(([k, v]) => `${k}=${v}`) : entries.map(([k, v]) => `${k},${v}`);
    if (style === 'label') return `.${pairs.join(explode ? '.' : ',')}`;
    if (style === 'matrix')
      return explode ? entries.map(([k, v]) => `;${k}=${v}`).join('') : `;${name}=${pairs.join(',')}`;
    return pairs.join(',');
  }
  const text = encode(scalar(value));
  if (style === 'label') return `.${text}`;
  if (style === 'matrix') return `;${name}=${text}`;
  return text;
}

/** `name=value` pairs (already encoded) for the query string. */
export function serializeQueryParam(param: OpenApiParameter, value: unknown): string[] {
  const name = encode(param.name);
  const asContent = contentValue(param, value);
  if (asContent !== undefined) return [`${name}=${encode(asContent)}`];
  const style = styleOf(param);
  const explode = explodeOf(param);
  const enc = (v: unknown) => encode(scalar(v), param.allowReserved);
  if (Array.isArray(value)) {
    if (explode && style === 'form') return value.map((v) => `${name}=${enc(v)}`);
    const separator = style === 'spaceDelimited' ? '%20' : style === 'pipeDelimited' ? '|' : ',';
    return [`${name}=${value.map(enc).join(separator)}`];
  }
  if (isPlainObject(value)) {
    if (style === 'deepObject')
      return Object.entries(value).map(([k, v]) => `${name}%5B${encode(k)}%5D=${enc(v)}`);
    if (explode) return Object.entries(value).map(([k, v]) => `${encode(k)}=${enc(v)}`);
    return [
      `${name}=${Object.entries(value)
        .flatMap(([k, v]) => [encode(k), enc(v)])
        .join(',')}`,
    ];
  }
  return [`${name}=${enc(value)}`];
}

/** The header value (style simple). */
export function serializeHeaderParam(param: OpenApiParameter, value: unknown): string {
  const asContent = contentValue(param, value);
  if (asContent !== undefined) return asContent;
  if (Array.isArray(value)) return value.map(scalar).join(',');
  if (isPlainObject(value)) {
    const entries = Object.entries(value);
    return param.explode
      ? entries.map(([k, v]) => `${k}=${scalar(v)}`).join(',')
      : entries.flatMap(([k, v]) => [k, scalar(v)]).join(',');
  }
  return scalar(value);
}

/** The cookie's value (style form; arrays and objects comma-separated). */
export function serializeCookieParam(param: OpenApiParameter, value: unknown): string {
  const asContent = contentValue(param, value);
  if (asContent !== undefined) return encodeURIComponent(asContent);
  if (Array.isArray(value)) return value.map((v) => encodeURIComponent(scalar(v))).join(',');
  if (isPlainObject(value))
    return Object.entries(value)
      .flatMap(([k, v]) => [encodeURIComponent(k), encodeURIComponent(scalar(v))])
      .join(',');
  return encodeURIComponent(scalar(value));
}
