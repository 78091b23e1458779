// The server's score routes (see @adk/server's README and ADR 0058): a session's and an app's
// scorer results. Declared here, not imported, so the bundle carries no server code.
import { apiFetch } from '../api/auth.js';
import { ApiError } from '../api/client.js';

export interface ScoreRecord {
  id: string;
  sessionId: string;
  invocationId: string;
  traceId?: string;
  scorerName: string;
  scorerVersion: string;
  status: 'ok' | 'failed';
  score?: number;
  reason?: string;
  error?: string;
  durationMs: number;
  createdAt: number;
}

const enc = encodeURIComponent;

/** Newest first; `session` narrows to one session. */
export async function listScores(
  app: string,
  query: { session?: string; limit?: number } = {},
): Promise<ScoreRecord[]> {
  const params = new URLSearchParams({ limit: String(query.limit ?? 1000) });
  if (query.session) params.set('session', query.session);
  let res: Response;
  try {
    res = await apiFetch(`/apps/${enc(app)}/scores?${params}`);
  } catch {
    throw new ApiError(0, 'The ADK server cannot be reached. Is `adk web` still running?');
  }
  if (!res.ok)
    throw new ApiError(res.status, `${res.status} ${await res.text().catch(() => res.statusText)}`);
  return ((await res.json()) as { scores: ScoreRecord[] }).scores;
}
