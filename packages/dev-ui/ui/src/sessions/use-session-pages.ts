import { useCallback, useRef, useState } from 'preact/hooks';
import { apiFetch } from '../api/auth.js';
import { ApiError } from '../api/client.js';
import type { Session } from '../api/types.js';

/** Sessions per page of the list (the server answers `{sessions, nextPageToken?}` for a page). */
export const SESSION_PAGE_SIZE = 50;

const enc = encodeURIComponent;

interface Page {
  sessions: Session[];
  nextPageToken?: string;
}

async function fetchPage(app: string, user: string, pageToken?: string): Promise<Page> {
  const query = `pageSize=${SESSION_PAGE_SIZE}${pageToken ? `&pageToken=${enc(pageToken)}` : ''}`;
  let res: Response;
  try {
    res = await apiFetch(`/apps/${enc(app)}/users/${enc(user)}/sessions?${query}`);
  } catch {
    throw new ApiError(0, 'The ADK server cannot be reached. Is `adk web` still running?');
  }
  const text = await res.text();
  if (!res.ok) {
    let detail = res.statusText;
    try {
      const body = JSON.parse(text) as { detail?: unknown };
      if (typeof body.detail === 'string') detail = body.detail;
    } catch {}
    throw new ApiError(res.status, `${res.status} ${detail}`);
  }
  const body = JSON.parse(text) as Page | Session[];
  // A server that does not page (ADK's own) answers the whole list as an array.
  return Array.isArray(body) ? { sessions: body } : body;
}

async function fetchOne(app: string, user: string, id: string): Promise<Session | undefined> {
  const res = await apiFetch(`/apps/${enc(app)}/users/${enc(user)}/sessions/${enc(id)}?numRecentEvents=0`);
  if (res.status === 404) return undefined;
  if (!res.ok) throw new ApiError(res.status, `${res.status} ${res.statusText}`);
  return (await res.json()) as Session;
}

/**
 * The session list of an app, a page at a time: `refresh` reads the first page again (keeping the
 * later pages already loaded), `loadMore` appends the next one, `find` looks an id up on the server
 * when it is not among the loaded pages.
 */
export function useSessionPages(user: string) {
  const [sessions, setSessions] = useState<Session[]>([]);
  const [loading, setLoading] = useState(false);
  const [nextPageToken, setNextPageToken] = useState<string | undefined>();
  const loadedFor = useRef<string | undefined>(undefined);
  const token = useRef<string | undefined>(undefined);

  const refresh = useCallback(
    async (app: string) => {
      const sameApp = loadedFor.current === app;
      if (!sameApp) {
        loadedFor.current = app;
        token.current = undefined;
        setSessions([]);
        setNextPageToken(undefined);
      }
      setLoading(true);
      try {
        const page = await fetchPage(app, user);
        if (loadedFor.current !== app) return;
        const ids = new Set(page.sessions.map((s) => s.id));
        const keepLater = sameApp && token.current !== undefined;
        setSessions((list) => [...page.sessions, ...(keepLater ? list.filter((s) => !ids.has(s.id)) : [])]);
        if (!keepLater) {
          token.current = page.nextPageToken;
          setNextPageToken(page.nextPageToken);
        }
      } finally {
        setLoading(false);
      }
    },
    [user],
  );

  const loadMore = useCallback(async () => {
    const app = loadedFor.current;
    const pageToken = token.current;
    if (!app || !pageToken) return;
    setLoading(true);
    try {
      const page = await fetchPage(app, user, pageToken);
      if (loadedFor.current !== app) return;
      setSessions((list) => {
        const ids = new Set(list.map((s) => s.id));
        return [...list, ...page.sessions.filter((s) => !ids.has(s.id))];
      });
      token.current = page.nextPageToken;
      setNextPageToken(page.nextPageToken);
    } finally {
      setLoading(false);
    }
  }, [user]);

  const find = useCallback(
    async (id: string) => {
      const app = loadedFor.current;
      if (!app) return undefined;
      const found = await fetchOne(app, user, id);
      if (found)
        setSessions((list) =>
          list.some((s) => s.id === found.id) ? list : [...list, { ...found, events: [] }],
        );
      return found;
    },
    [user],
  );

  return { sessions, setSessions, loading, hasMore: nextPageToken !== undefined, refresh, loadMore, find };
}
