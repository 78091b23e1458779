import {
  type AuthConfig,
  applyCredential,
  BaseTool,
  type FunctionDeclaration,
  isPlainObject,
  type JsonSchema,
  type ToolContext,
  tryParseJson,
} from '@adk/core';
import { type HttpClientOptions, type HttpRequest, isApiCallError, send } from '@adk/core/http';
import type { OpenApiOperation, OpenApiParameter } from './operations.js';
import {
  serializeCookieParam,
  serializeHeaderParam,
  serializePathParam,
  serializeQueryParam,
} from './serialize.js';
import { toToolSchema } from './tool-schema.js';

/** How one tool argument maps to the operation. */
type Argument = { kind: 'param'; param: OpenApiParameter } | { kind: 'body'; mediaType: string };

export interface OpenApiToolInit {
  name: string;
  operation: OpenApiOperation;
  /** Base URL the operation's path is appended to. */
  baseUrl: string;
  /** The credentials the operation needs (one per scheme of the chosen security requirement). */
  authConfigs: AuthConfig[];
  http: HttpClientOptions;
  /** Headers sent with every call (e.g. a User-Agent the API requires). */
  headers: Record<string, string>;
}

const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json\b/i;
const FORM_MEDIA = 'application/x-www-form-urlencoded';
/** `.` and `..` path segments, also percent-encoded (`%2e`), which URLs resolve away. */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

function argumentName(param: OpenApiParameter, taken: Set<string>): string {
  let name = param.name.replace(/[^A-Za-z0-9_]/g, '_');
  if (!/^[A-Za-z_]/.test(name)) name = `p_${name}`;
  if (taken.has(name)) name = `${name}_${param.in}`;
  return name;
}

/** One OpenAPI operation as a tool: arguments per its parameters and body, a call over HTTP. */
export class OpenApiTool extends BaseTool {
  readonly operation: OpenApiOperation;
  private readonly init: OpenApiToolInit;
  private readonly args = new Map<string, Argument>();
  private readonly parameters: JsonSchema;

  constructor(init: OpenApiToolInit) {
    const op = init.operation;
    const text = [op.summary, op.description].filter(Boolean).join('\n\n');
    super({ name: init.name, description: text || `${op.method.toUpperCase()} ${op.path}` });
    this.operation = op;
    this.init = init;
    this.parameters = this.buildParameters();
  }

  private buildParameters(): JsonSchema {
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    const taken = new Set<string>();
    for (const param of this.operation.parameters) {
      const name = argumentName(param, taken);
      taken.add(name);
      this.args.set(name, { kind: 'param', param });
      const schema = param.schema ?? Object.values(param.content ?? {})[0]?.schema ?? { type: 'string' };
      const converted = toToolSchema(schema, { request: true });
      properties[name] = param.description ? { ...converted, description: param.description } : converted;
      if (param.required || param.in === 'path') required.push(name);
    }
    const body = this.operation.requestBody;
    if (body) {
      const mediaType =
        Object.keys(body.content).find((m) => JSON_MEDIA.test(m)) ??
        Object.keys(body.content).find((m) => m.startsWith(FORM_MEDIA)) ??
        Object.keys(body.content)[0];
      if (mediaType !== undefined) {
        const name = taken.has('body') ? 'request_body' : 'body';
        this.args.set(name, { kind: 'body', mediaType });
        const converted = toToolSchema(body.content[mediaType]?.schema ?? {}, { request: true });
        properties[name] = body.description ? { ...converted, description: body.description } : converted;
        if (body.required) required.push(name);
      }
    }
    return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
  }

  declaration(): FunctionDeclaration {
    return { name: this.name, description: this.description, parameters: this.parameters };
  }

  async run(args: Record<string, unknown>, context: ToolContext): Promise<unknown> {
    const required = (this.parameters.required as string[] | undefined) ?? [];
    const missing = required.filter((name) => args[name] === undefined || args[name] === null);
    if (missing.length > 0) return { error: `Missing required arguments: ${missing.join(', ')}` };

    const headers: Record<string, string> = { ...this.init.headers };
    const query: string[] = [];
    const cookies: string[] = [];
    // Credential values, redacted from any error the HTTP layer reports.
    const secrets: string[] = [];
    for (const config of this.init.authConfigs) {
      const credential = await context.getCredential(config);
      // The credential was requested from the client: the call pauses until it answers.
      if (!credential) return { pending: 'Waiting for the user to provide credentials for this API.' };
      const placement = applyCredential(config.authScheme, credential);
      for (const part of [placement.headers, placement.query, placement.cookies])
        for (const value of Object.values(part)) secrets.push(value, value.replace(/^\S+\s+/, ''));
      Object.assign(headers, placement.headers);
      for (const [k, v] of Object.entries(placement.query))
        query.push(`${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
      for (const [k, v] of Object.entries(placement.cookies)) cookies.push(`${k}=${encodeURIComponent(v)}`);
    }

    let path = this.operation.path;
    let body: unknown;
    let contentType: string | undefined;
    for (const [name, arg] of this.args) {
      const value = args[name];
      if (value === undefined) continue;
      if (arg.kind === 'body') {
        if (JSON_MEDIA.test(arg.mediaType)) {
          body = value;
        } else if (arg.mediaType.startsWith(FORM_MEDIA) && isPlainObject(value)) {
          body = new URLSearchParams(
            Object.entries(value).map(([k, v]): [string, string] => [
              k,
              typeof v === 'object' ? JSON.stringify(v) : String(v),
            ]),
          );
        } else {
          return { error: `Request bodies of type ${arg.mediaType} are not supported by this tool.` };
        }
        contentType = arg.mediaType;
        continue;
      }
      const param = arg.param;
      if (param.in === 'path') path = path.replaceAll(`{${param.name}}`, serializePathParam(param, value));
      else if (param.in === 'query') query.push(...serializeQueryParam(param, value));
      else if (param.in === 'header') headers[param.name.toLowerCase()] = serializeHeaderParam(param, value);
      else cookies.push(`${param.name}=${serializeCookieParam(param, value)}`);
    }
    // A value such as '..' would otherwise make the URL walk up to another endpoint of the API
    // (with this operation's credentials): URLs resolve dot segments, encoded ones too.
    if (path.split('/').some((segment) => DOT_SEGMENT.test(segment)))
      return { error: `A path parameter of ${this.operation.path} cannot be "." or "..".` };
    if (cookies.length > 0) headers.cookie = cookies.join('; ');
    if (contentType && JSON_MEDIA.test(contentType)) headers['content-type'] = contentType;

    const method = this.operation.method.toUpperCase();
    if (method === 'TRACE') return { error: 'TRACE operations are not supported.' };
    const base = this.init.baseUrl.replace(/\/+$/, '');
    const url = `${base}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;
    const request: HttpRequest = {
      ...this.init.http,
      url,
      method: method as NonNullable<HttpRequest['method']>,
      requestHeaders: headers,
      ...(body !== undefined ? { body } : {}),
      signal: context.signal,
      apiName: `${method} ${this.operation.path}`,
    };
    try {
      const response = await send(
        request,
        [...secrets, ...secretValues(headers)].filter((v) => v.length >= 4),
        'application/json, text/*;q=0.9, */*;q=0.8',
      );
      return await readResponse(response);
    } catch (error) {
      if (!isApiCallError(error)) throw error;
      if (error.status === undefined) return { error: error.message };
      if (error.status === 401) {
        // A stored credential the API no longer accepts (revoked, expired early): forget it so the
        // next call refreshes or asks again. Credentials given in the config are left alone.
        for (const config of this.init.authConfigs)
          if (!isComplete(config)) await context.forgetCredential(config);
      }
      const parsed = error.responseBody
        ? (tryParseJson(error.responseBody) ?? error.responseBody)
        : undefined;
      return {
        error: `HTTP ${error.status}${error.vendorMessage ? `: ${error.vendorMessage}` : ''}`,
        status: error.status,
        ...(parsed !== undefined && parsed !== '' ? { body: parsed } : {}),
      };
    }
  }
}

/** Whether the config itself holds the secret (then nothing was stored for it). */
function isComplete(config: AuthConfig): boolean {
  const raw = config.rawAuthCredential;
  return Boolean(
    raw?.apiKey ||
      raw?.http?.credentials.token ||
      raw?.http?.credentials.password ||
      raw?.oauth2?.accessToken,
  );
}

/** Credentials among the request headers, redacted from any error the HTTP layer reports. */
function secretValues(headers: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (
      !/^(authorization|cookie|x-api-key|api-key|proxy-authorization)$/i.test(name) &&
      !/key|token|secret/i.test(name)
    )
      continue;
    out.push(value);
    const token = /^\S+\s+(\S+)$/.exec(value)?.[1];
    if (token) out.push(token);
  }
  return out.filter((s) => s.length >= 4);
}

/** The response for the model: JSON as is (non-objects as `{ result }`), text as `{ text }`. */
async function readResponse(response: Response): Promise<Record<string, unknown>> {
  const type = response.headers.get('content-type') ?? '';
  const text = await response.text();
  if (text === '') return { status: response.status };
  if (JSON_MEDIA.test(type) || /^\s*[{[]/.test(text)) {
    const value = tryParseJson(text);
    if (value !== undefined) return isPlainObject(value) ? value : { result: value };
  }
  return { text };
}
