import './reload-banner.css';
import { useEffect, useRef, useState } from 'preact/hooks';
import { fetchWithStoredToken } from '../api/auth.js';

/** Why an app's latest load failed, as `GET /dev/reload` of `adk web` reports it. */
export interface ReloadError {
  file: string;
  message: string;
  at: string;
  keptPrevious: boolean;
}

interface ReloadStatus {
  enabled: boolean;
  apps: Record<string, { revision: number; error?: ReloadError } | undefined>;
}

const POLL_MS = 1500;

/**
 * `adk web` hot reload, seen from the page: polls `GET /dev/reload` and returns the load error of
 * `app` (if its latest load failed) and the version it serves. Calls `onNewVersion` when the version
 * of `app` changes, so views of the app (graph, info) fetch it again. Stops polling on a server
 * without hot reload (`enabled: false`, or no such route); a failed poll (server restarting, token
 * not given yet) is retried.
 */
export function useAppReload(app: string | undefined, onNewVersion: () => void): { error?: ReloadError } {
  const [status, setStatus] = useState<ReloadStatus | undefined>();
  const seen = useRef(new Map<string, number>());
  const notify = useRef(onNewVersion);
  notify.current = onNewVersion;

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const res = await fetchWithStoredToken('/dev/reload', { headers: { accept: 'application/json' } });
        if (res.status === 404) return;
        if (res.ok) {
          const next = (await res.json()) as ReloadStatus;
          if (stopped) return;
          setStatus(next);
          if (!next.enabled) return;
        }
      } catch {}
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);

  const current = app ? status?.apps[app] : undefined;
  useEffect(() => {
    if (!app || !current) return;
    const before = seen.current.get(app);
    seen.current.set(app, current.revision);
    if (before !== undefined && before !== current.revision) notify.current();
  }, [app, current?.revision]);

  return current?.error ? { error: current.error } : {};
}

/** The banner for an app whose files fail to load: the file and the message. */
export function ReloadBanner({ app, error }: { app: string; error: ReloadError }) {
  return (
    <section class="reload-banner" role="alert" aria-label={`${app} failed to load`}>
      <h2>
        {app} failed to load: <code>{error.file}</code>
      </h2>
      <pre>{error.message}</pre>
      <p class="muted">
        {error.keptPrevious
          ? 'Still running the version loaded before. Fix the file and save: the app reloads.'
          : 'Fix the file and save: the app reloads.'}
      </p>
    </section>
  );
}
