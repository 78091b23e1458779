// Claude on Google Cloud Vertex AI and on Amazon Bedrock: the same Messages body, another URL,
// another authentication, and (Bedrock) another stream framing.
import { ConfigError } from '@adk/core';
import { loadSetting } from '@adk/core/http';

/** Claude on Vertex AI (`publishers/anthropic` models). */
export interface ClaudeVertexOptions {
  /** Default: `GOOGLE_CLOUD_PROJECT`. */
  project?: string;
  /** Default: `GOOGLE_CLOUD_LOCATION`, else 'us-east5'. 'global' uses the global endpoint. */
  region?: string;
  /** An OAuth2 access token, or a function returning one (called per request, so it can refresh). */
  accessToken?: string | (() => string | Promise<string>);
  /** Overrides `https://{region}-aiplatform.googleapis.com/v1`. */
  baseURL?: string;
}

/** Claude on Amazon Bedrock, signed with SigV4. */
export interface ClaudeBedrockOptions {
  /** Default: `AWS_REGION`, then `AWS_DEFAULT_REGION`. */
  region?: string;
  /** Default: `AWS_ACCESS_KEY_ID`. */
  accessKeyId?: string;
  /** Default: `AWS_SECRET_ACCESS_KEY`. */
  secretAccessKey?: string;
  /** Default: `AWS_SESSION_TOKEN` (temporary credentials). */
  sessionToken?: string;
  /** Overrides `https://bedrock-runtime.{region}.amazonaws.com`. */
  baseURL?: string;
}

export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

export interface CloudTarget {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** Replaces fetch (Bedrock: signs the request and turns its event stream into SSE). */
  fetch?: typeof fetch;
}

/** The Messages body for a cloud endpoint: the model goes in the URL, the version in the body. */
function cloudBody(body: Record<string, unknown>, version: string, betas: string[] | undefined) {
  const { model: _model, stream: _stream, ...rest } = body;
  return { anthropic_version: version, ...rest, ...(betas?.length ? { anthropic_beta: betas } : {}) };
}

export async function vertexTarget(
  model: string,
  options: ClaudeVertexOptions,
  body: Record<string, unknown>,
  stream: boolean,
  betas: string[] | undefined,
): Promise<CloudTarget> {
  const project = loadSetting(options.project, ['GOOGLE_CLOUD_PROJECT']);
  if (!project)
    throw new ConfigError(
      'Claude on Vertex AI needs a project: pass vertex.project or set GOOGLE_CLOUD_PROJECT.',
    );
  const region = loadSetting(options.region, ['GOOGLE_CLOUD_LOCATION']) ?? 'us-east5';
  const host = region === 'global' ? 'aiplatform.googleapis.com' : `${region}-aiplatform.googleapis.com`;
  const base = (options.baseURL ?? `https://${host}/v1`).replace(/\/+$/, '');
  const source = options.accessToken;
  const token = typeof source === 'function' ? await source() : source;
  if (!token)
    throw new ConfigError(
      'Claude on Vertex AI needs an access token: pass vertex.accessToken (a string or a function).',
    );
  return {
    url: `${base}/projects/${project}/locations/${region}/publishers/anthropic/models/${model}:${stream ? 'streamRawPredict' : 'rawPredict'}`,
    headers: { authorization: `Bearer ${token}` },
    body: { ...cloudBody(body, VERTEX_ANTHROPIC_VERSION, betas), ...(stream ? { stream: true } : {}) },
  };
}

export async function bedrockTarget(
  model: string,
  options: ClaudeBedrockOptions,
  body: Record<string, unknown>,
  stream: boolean,
  betas: string[] | undefined,
): Promise<CloudTarget> {
  const region = loadSetting(options.region, ['AWS_REGION', 'AWS_DEFAULT_REGION']);
  const accessKeyId = loadSetting(options.accessKeyId, ['AWS_ACCESS_KEY_ID']);
  const secretAccessKey = loadSetting(options.secretAccessKey, ['AWS_SECRET_ACCESS_KEY']);
  const sessionToken = loadSetting(options.sessionToken, ['AWS_SESSION_TOKEN']);
  if (!region)
    throw new ConfigError('Claude on Bedrock needs a region: pass bedrock.region or set AWS_REGION.');
  if (!accessKeyId || !secretAccessKey) {
    throw new ConfigError(
      'Claude on Bedrock needs AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones), or pass them in bedrock.',
    );
  }
  const { AwsClient } = await import('aws4fetch');
  const aws = new AwsClient({
    accessKeyId,
    secretAccessKey,
    ...(sessionToken ? { sessionToken } : {}),
    service: 'bedrock',
    region,
  });
  const base = (options.baseURL ?? `https://bedrock-runtime.${region}.amazonaws.com`).replace(/\/+$/, '');
  const signedFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await aws.fetch(String(input), init);
    return stream && response.ok && response.body ? eventStreamAsSse(response) : response;
  };
  return {
    url: `${base}/model/${encodeURIComponent(model)}/${stream ? 'invoke-with-response-stream' : 'invoke'}`,
    headers: {},
    body: cloudBody(body, BEDROCK_ANTHROPIC_VERSION, betas),
    fetch: signedFetch as typeof fetch,
  };
}

/**
 * Bedrock streams in the AWS event-stream binary framing; each `chunk` message carries one
 * Anthropic stream event (base64 JSON). Re-framed as server-sent events, the Anthropic parser reads
 * it unchanged; an `exception` message becomes an Anthropic `error` event.
 */
export function eventStreamAsSse(response: Response): Response {
  let buffer = new Uint8Array(0);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const transform = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      const joined = new Uint8Array(buffer.length + chunk.length);
      joined.set(buffer);
      joined.set(chunk, buffer.length);
      buffer = joined;
      while (buffer.length >= 12) {
        const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
        const total = view.getUint32(0);
        if (buffer.length < total) break;
        const headersLength = view.getUint32(4);
        const headers = readHeaders(buffer.subarray(12, 12 + headersLength));
        const payload = decoder.decode(buffer.subarray(12 + headersLength, total - 4));
        buffer = buffer.slice(total);
        let sse: string | undefined;
        if (headers[':message-type'] === 'event' && headers[':event-type'] === 'chunk') {
          const bytes = (JSON.parse(payload) as { bytes?: string }).bytes;
          if (bytes) {
            const event = Buffer.from(bytes, 'base64').toString('utf8');
            const type = (JSON.parse(event) as { type?: string }).type ?? 'message';
            sse = `event: ${type}\ndata: ${event}\n\n`;
          }
        } else if (headers[':message-type'] === 'exception') {
          const message = (JSON.parse(payload) as { message?: string }).message ?? payload;
          const error = {
            type: 'error',
            error: { type: headers[':exception-type'] ?? 'api_error', message },
          };
          sse = `event: error\ndata: ${JSON.stringify(error)}\n\n`;
        }
        if (sse) controller.enqueue(encoder.encode(sse));
      }
    },
  });
  const headers = new Headers(response.headers);
  headers.set('content-type', 'text/event-stream');
  return new Response(response.body?.pipeThrough(transform) ?? null, { status: response.status, headers });
}

/** Event-stream headers; only string values (type 7) are needed here. */
function readHeaders(bytes: Uint8Array): Record<string, string> {
  const out: Record<string, string> = {};
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new TextDecoder();
  let at = 0;
  while (at < bytes.length) {
    const nameLength = bytes[at] as number;
    const name = decoder.decode(bytes.subarray(at + 1, at + 1 + nameLength));
    at += 1 + nameLength;
    const type = bytes[at] as number;
    at += 1;
    if (type === 7 || type === 6) {
      const length = view.getUint16(at);
      const value = bytes.subarray(at + 2, at + 2 + length);
      if (type === 7) out[name] = decoder.decode(value);
      at += 2 + length;
    } else {
      // bool true/false (0/1), byte (2), short (3), int (4), long (5), timestamp (8), uuid (9)
      at += [0, 0, 1, 2, 4, 8, 0, 0, 8, 16][type] ?? bytes.length;
    }
  }
  return out;
}
