import { apiFetch, fetchWithStoredToken } from './auth.js';
import { readSse } from './sse.js';
import type { AdkEvent, Content, JsonObject, Part, Session, Span } from './types.js';

/** An HTTP answer that was not 2xx, or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const enc = encodeURIComponent;

async function request<T>(path: string, init?: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await apiFetch(path, {
      ...init,
      headers: { 'content-type': 'application/json', ...init?.headers },
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'The ADK server cannot be reached. Is `adk web` still running?');
  }
  if (res.status === 204) return undefined as T;
  // An error answer whose body cannot be read still says its status.
  const body = res.ok ? await res.text() : await res.text().catch(() => '');
  return settle<T>({ status: res.status, statusText: res.statusText, body });
}

/** An HTTP answer with its body read. */
interface Answer {
  status: number;
  statusText: string;
  body: string;
}

/** The JSON of a 2xx answer; otherwise an `ApiError` with the server's message. */
function settle<T>({ status, statusText, body }: Answer): T {
  if (status < 200 || status > 299) {
    let detail = statusText;
    try {
      const json = JSON.parse(body) as { detail?: unknown; error?: unknown; message?: unknown };
      const text = json.detail ?? json.error ?? json.message;
      if (text !== undefined) detail = typeof text === 'string' ? text : JSON.stringify(text);
    } catch {}
    throw new ApiError(status, `${status} ${detail}`.trim());
  }
  return (body ? JSON.parse(body) : undefined) as T;
}

const sessionsPath = (app: string, user: string) => `/apps/${enc(app)}/users/${enc(user)}/sessions`;

declare global {
  interface Window {
    /** The app list answer index.html asks for before this script has loaded. */
    __adkAppList?: Promise<Answer | undefined>;
  }
}

let earlyAppList: Promise<Answer | undefined> | undefined;

/**
 * Takes the app list request index.html sent while the script downloaded (or sends it now, before
 * the first render): the composer waits for its answer. The next `api.listApps()` uses this answer;
 * a 401 or a network failure goes the ordinary way (asking for the token, the error message), as if
 * the early request had not been made. The promise settles (never rejects) once the answer is here.
 */
export function requestAppListEarly(): Promise<unknown> {
  if (earlyAppList) return earlyAppList;
  earlyAppList =
    window.__adkAppList ??
    fetchWithStoredToken('/list-apps', { headers: { 'content-type': 'application/json' } })
      .then(async (res) => ({ status: res.status, statusText: res.statusText, body: await res.text() }))
      .catch(() => undefined);
  window.__adkAppList = undefined;
  return earlyAppList;
}

async function listApps(): Promise<string[]> {
  const early = earlyAppList;
  earlyAppList = undefined;
  const answer = early ? await early : undefined;
  if (answer && answer.status !== 401) return settle<string[]>(answer);
  return request<string[]>('/list-apps');
}

export const api = {
  listApps,
  listSessions: (app: string, user: string) => request<Session[]>(sessionsPath(app, user)),
  /** `numRecentEvents`: only the latest events (ADK's GetSessionConfig; older servers send all). */
  getSession: (app: string, user: string, id: string, config: { numRecentEvents?: number } = {}) =>
    request<Session>(
      `${sessionsPath(app, user)}/${enc(id)}${config.numRecentEvents === undefined ? '' : `?numRecentEvents=${config.numRecentEvents}`}`,
    ),
  createSession: (app: string, user: string, state?: JsonObject) =>
    request<Session>(sessionsPath(app, user), {
      method: 'POST',
      body: JSON.stringify(state ? { state } : {}),
    }),
  deleteSession: (app: string, user: string, id: string) =>
    request<void>(`${sessionsPath(app, user)}/${enc(id)}`, { method: 'DELETE' }),
  /** Rewinds the session to before an invocation (one appended event; nothing is deleted). */
  rewind: (app: string, user: string, id: string, rewindBeforeInvocationId: string) =>
    request<AdkEvent>(`${sessionsPath(app, user)}/${enc(id)}/rewind`, {
      method: 'POST',
      body: JSON.stringify({ rewindBeforeInvocationId }),
    }),
  /** A new session holding this one's history up to and including an event. */
  fork: (app: string, user: string, id: string, atEventId: string) =>
    request<Session>(`${sessionsPath(app, user)}/${enc(id)}/fork`, {
      method: 'POST',
      body: JSON.stringify({ atEventId }),
    }),

  listArtifacts: (app: string, user: string, session: string) =>
    request<string[]>(`${sessionsPath(app, user)}/${enc(session)}/artifacts`),
  listArtifactVersions: (app: string, user: string, session: string, name: string) =>
    request<number[]>(`${sessionsPath(app, user)}/${enc(session)}/artifacts/${enc(name)}/versions`),
  loadArtifact: (app: string, user: string, session: string, name: string, version?: number) =>
    request<Part>(
      `${sessionsPath(app, user)}/${enc(session)}/artifacts/${enc(name)}${version === undefined ? '' : `/versions/${version}`}`,
    ),

  async sessionTrace(app: string, session: string): Promise<Span[]> {
    let raw: unknown;
    try {
      raw = await request<unknown>(`/debug/trace/session/${enc(session)}`);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 404) throw error;
      raw = await request<unknown>(`/dev/apps/${enc(app)}/debug/trace/session/${enc(session)}`);
    }
    return Array.isArray(raw) ? raw.map(toSpan) : [];
  },
  eventTrace: (eventId: string) => request<JsonObject>(`/debug/trace/${enc(eventId)}`),
  buildGraph: (app: string) => request<unknown>(`/dev/apps/${enc(app)}/build_graph`),
  /** The skills each agent of the app can load, and the state key prefix that marks one loaded. */
  skills: (app: string) =>
    request<{
      agents: { agent: string; statePrefix: string; skills: { name: string; description: string }[] }[];
    }>(`/dev/apps/${enc(app)}/skills`),

  /**
   * Runs the agent on one message and yields every event of `/run_sse` as it arrives (partial
   * chunks included). Aborting `signal` closes the stream, which the server takes as a stop.
   */
  async *run(
    body: {
      appName: string;
      userId: string;
      sessionId: string;
      newMessage: Content;
      stateDelta?: JsonObject;
    },
    signal: AbortSignal,
  ): AsyncGenerator<AdkEvent> {
    let res: Response;
    try {
      res = await apiFetch('/run_sse', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ ...body, streaming: true }),
        signal,
      });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new ApiError(0, 'The ADK server cannot be reached. Is `adk web` still running?');
    }
    if (!res.ok || !res.body) {
      const text = await res.text().catch(() => '');
      let detail = text || res.statusText;
      try {
        const body = JSON.parse(text) as { detail?: unknown; error?: unknown };
        const d = body.detail ?? body.error;
        if (d !== undefined) detail = typeof d === 'string' ? d : JSON.stringify(d);
      } catch {}
      throw new ApiError(res.status, `${res.status} ${detail}`);
    }
    for await (const data of readSse(res.body)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch {
        throw new ApiError(502, `The server sent a line that is not JSON: ${data.slice(0, 200)}`);
      }
      const value = parsed as Partial<AdkEvent> & { error?: unknown };
      if (value.error !== undefined && value.id === undefined) {
        throw new ApiError(500, typeof value.error === 'string' ? value.error : JSON.stringify(value.error));
      }
      yield value as AdkEvent;
    }
  },
};

function num(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value !== '') return Number(value);
  return 0;
}

/** Spans as ADK's server sends them (snake_case, nanoseconds) or camelCase, in milliseconds. */
function toSpan(raw: unknown): Span {
  const s = (raw ?? {}) as Record<string, unknown>;
  const toMs = (v: unknown) => {
    const n = num(v);
    // Nanoseconds since the epoch are > 1e15; milliseconds are ~1.7e12.
    return n > 1e15 ? n / 1e6 : n;
  };
  const parent = s.parent_span_id ?? s.parentSpanId ?? null;
  return {
    name: String(s.name ?? 'span'),
    spanId: String(s.span_id ?? s.spanId ?? ''),
    parentSpanId: parent === null || parent === undefined || parent === '' ? null : String(parent),
    traceId: String(s.trace_id ?? s.traceId ?? ''),
    start: toMs(s.start_time ?? s.startTime),
    end: toMs(s.end_time ?? s.endTime),
    attributes: (s.attributes as JsonObject | undefined) ?? {},
  };
}
