import type { LlmRequest } from '@adk/core';
import type { GeminiLiveEndpoint } from './connection.js';

export type LiveApiVersion = 'v1beta' | 'v1alpha';

export interface GeminiLiveEndpointOptions {
  model: string;
  userAgent: string;
  /** Auth headers of the provider: `x-goog-api-key` (Gemini API) or `authorization` (Vertex AI). */
  headers: Record<string, string>;
  extraHeaders?: Record<string, string | undefined>;
  baseURL?: string;
  apiVersion?: LiveApiVersion;
  handshakeTimeoutMs?: number;
  vertex?: { project: string; location: string };
}

/**
 * The Live API endpoint: the Gemini API's `GenerativeService.BidiGenerateContent` (key in the
 * query, as the Live API documents) or Vertex AI's `LlmBidiService/BidiGenerateContent` (bearer
 * token, model as a full resource name).
 */
export function geminiLiveEndpoint(
  request: LlmRequest,
  options: GeminiLiveEndpointOptions,
): GeminiLiveEndpoint {
  const headers: Record<string, string> = { 'user-agent': options.userAgent };
  for (const [name, value] of Object.entries(options.extraHeaders ?? {}))
    if (value !== undefined) headers[name.toLowerCase()] = value;
  const model = options.model.replace(/^models\//, '');

  if (options.vertex) {
    const { project, location } = options.vertex;
    const host =
      location === 'global' ? 'aiplatform.googleapis.com' : `${location}-aiplatform.googleapis.com`;
    const base = (options.baseURL ?? `wss://${host}`).replace(/\/+$/, '');
    const url = `${base}/ws/google.cloud.aiplatform.v1beta1.LlmBidiService/BidiGenerateContent`;
    return {
      url,
      displayUrl: url,
      headers: { ...headers, ...options.headers },
      model: `projects/${project}/locations/${location}/publishers/google/models/${model}`,
      vertex: true,
      apiName: 'Vertex AI Live API',
      handshakeTimeoutMs: options.handshakeTimeoutMs,
    };
  }

  const live = request.config.live;
  const version =
    options.apiVersion ?? (live?.enableAffectiveDialog || live?.proactivity ? 'v1alpha' : 'v1beta');
  const base = (options.baseURL ?? 'wss://generativelanguage.googleapis.com').replace(/\/+$/, '');
  const path = `${base}/ws/google.ai.generativelanguage.${version}.GenerativeService.BidiGenerateContent`;
  const key = options.headers['x-goog-api-key'] ?? '';
  return {
    url: `${path}?key=${encodeURIComponent(key)}`,
    displayUrl: `${path}?key=***`,
    headers,
    model: `models/${model}`,
    vertex: false,
    apiName: 'Gemini Live API',
    handshakeTimeoutMs: options.handshakeTimeoutMs,
  };
}
