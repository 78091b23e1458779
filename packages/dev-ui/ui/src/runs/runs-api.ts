// The server's runs routes (see @adk/server's README): list a session's runs, cancel one, and
// follow one's events as SSE. Declared here, not imported, so the bundle carries no server code.
import { apiFetch } from '../api/auth.js';
import { ApiError } from '../api/client.js';
import type { AdkEvent } from '../api/types.js';

export type RunStatus = 'queued' | 'running' | 'paused' | 'succeeded' | 'failed' | 'cancelled';

export interface RunRecord {
  runId: string;
  invocationId: string;
  status: RunStatus;
  background?: boolean;
  createdAt: number;
  startedAt?: number;
  endedAt?: number;
  durationMs: number;
  cancelRequested?: boolean;
  error?: { code?: string; message?: string };
  /** Tokens and cost of the run's model calls (servers that record them), set when it ends. */
  usage?: RunUsage;
}

/** A run's (or a session's) model calls: tokens, and USD as the server's price table says. */
export interface RunUsage {
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  costUsd: number;
  unpricedCalls: number;
}

export const isLive = (status: RunStatus) => status === 'queued' || status === 'running';

const enc = encodeURIComponent;
const runsPath = (app: string, user: string, session: string) =>
  `/apps/${enc(app)}/users/${enc(user)}/sessions/${enc(session)}/runs`;

async function errorOf(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  let detail = text || res.statusText;
  try {
    const body = JSON.parse(text) as { detail?: unknown; error?: unknown };
    const d = body.detail ?? body.error;
    if (d !== undefined) detail = typeof d === 'string' ? d : JSON.stringify(d);
  } catch {}
  return new ApiError(res.status, `${res.status} ${detail}`);
}

async function send<T>(path: string, init?: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await apiFetch(path, init);
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'The ADK server cannot be reached. Is `adk web` still running?');
  }
  if (!res.ok) throw await errorOf(res);
  return (await res.json()) as T;
}

/** One SSE message: its `event:` type (default `message`), `id:` and joined `data:` lines. */
export interface SseMessage {
  event: string;
  id?: string;
  data: string;
}

/** Reads a `text/event-stream` body message by message, with the fields the runs tail uses. */
export async function* readSseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let message: { event: string; id?: string; data: string[] } = { event: 'message', data: [] };
  const field = (line: string, name: string) => {
    const rest = line.slice(name.length + 1);
    return rest.startsWith(' ') ? rest.slice(1) : rest;
  };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        let line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.endsWith('\r')) line = line.slice(0, -1);
        if (line === '') {
          if (message.data.length > 0)
            yield {
              event: message.event,
              ...(message.id !== undefined ? { id: message.id } : {}),
              data: message.data.join('\n'),
            };
          message = { event: 'message', data: [] };
        } else if (line.startsWith('data:')) message.data.push(field(line, 'data'));
        else if (line.startsWith('event:')) message.event = field(line, 'event');
        else if (line.startsWith('id:')) message.id = field(line, 'id');
        newline = buffer.indexOf('\n');
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/** What a run's tail yields: its events (partial ones included), then its final record. */
export type RunTailItem = { kind: 'event'; event: AdkEvent } | { kind: 'end'; run: RunRecord };

export const runsApi = {
  /** Totals of a session's runs (`GET …/sessions/{id}/usage`). */
  sessionUsage: (app: string, user: string, session: string) =>
    send<{ runs: number; usage: RunUsage }>(
      `/apps/${enc(app)}/users/${enc(user)}/sessions/${enc(session)}/usage`,
    ),
  async list(
    app: string,
    user: string,
    session: string,
    options: { status?: RunStatus[]; pageSize?: number } = {},
  ): Promise<RunRecord[]> {
    const query = new URLSearchParams();
    if (options.status) query.set('status', options.status.join(','));
    if (options.pageSize) query.set('pageSize', String(options.pageSize));
    const q = query.toString();
    const page = await send<{ runs: RunRecord[] }>(`${runsPath(app, user, session)}${q ? `?${q}` : ''}`);
    return page.runs;
  },

  get: (app: string, user: string, session: string, runId: string) =>
    send<RunRecord>(`${runsPath(app, user, session)}/${enc(runId)}`),

  cancel: (app: string, user: string, session: string, runId: string) =>
    send<RunRecord>(`${runsPath(app, user, session)}/${enc(runId)}/cancel`, { method: 'POST' }),

  /** The live (queued or running) run of an invocation, if the server has one. */
  async findLive(app: string, user: string, session: string, invocationId: string) {
    const runs = await runsApi.list(app, user, session, { status: ['running', 'queued'] });
    return runs.find((r) => r.invocationId === invocationId);
  },

  /**
   * Follows a run: its stored events after `after` (all when omitted), then live ones until it
   * ends. Closing the stream (aborting `signal`) leaves the run going: it is a background run.
   */
  async *tail(
    app: string,
    user: string,
    session: string,
    runId: string,
    signal: AbortSignal,
    after?: string,
  ): AsyncGenerator<RunTailItem> {
    let res: Response;
    try {
      res = await apiFetch(
        `${runsPath(app, user, session)}/${enc(runId)}/events${after ? `?after=${enc(after)}` : ''}`,
        { headers: { accept: 'text/event-stream' }, signal },
      );
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new ApiError(0, 'The ADK server cannot be reached. Is `adk web` still running?');
    }
    if (!res.ok || !res.body) throw await errorOf(res);
    for await (const message of readSseMessages(res.body)) {
      let value: unknown;
      try {
        value = JSON.parse(message.data);
      } catch {
        throw new ApiError(502, `The server sent a line that is not JSON: ${message.data.slice(0, 200)}`);
      }
      if (message.event === 'end') {
        yield { kind: 'end', run: value as RunRecord };
        return;
      }
      if (message.event === 'error') {
        const error = (value as { error?: unknown }).error;
        throw new ApiError(500, typeof error === 'string' ? error : JSON.stringify(error));
      }
      yield { kind: 'event', event: value as AdkEvent };
    }
  },
};
