// The builder routes of `adk web` (ADK's `/dev/apps/{app}/builder…` spelling), as the Builder tab uses them.
import { apiFetch } from '../api/auth.js';

const enc = encodeURIComponent;

/** The app name `adk web` serves an app's unsaved draft under (see @adk/cli's README). */
export function draftAppName(app: string): string {
  return `__draft__${app}`;
}

/** A refused builder request: the server's `detail` (file, line, YAML path, what was expected). */
export class BuilderError extends Error {
  override readonly name = 'BuilderError';
}

async function detailOf(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { detail?: unknown };
    if (typeof body.detail === 'string') return body.detail;
  } catch {}
  return `${res.status} ${text || res.statusText}`.trim();
}

export interface BuilderFile {
  /** Relative to the app folder, `/`-separated. */
  path: string;
  text: string;
}

export const builderApi = {
  /** A YAML file of the app (or of its draft): empty text when it does not exist. */
  async read(app: string, path: string, tmp = false): Promise<string> {
    const res = await apiFetch(
      `/dev/apps/${enc(app)}/builder?file_path=${enc(path)}${tmp ? '&tmp=true' : ''}&ts=${Date.now()}`,
    );
    if (!res.ok) throw new BuilderError(await detailOf(res));
    return res.text();
  },

  /** Writes files to the draft (`tmp`, then served as `draftAppName(app)`) or to the app. */
  async save(app: string, files: BuilderFile[], tmp: boolean): Promise<void> {
    const form = new FormData();
    for (const file of files)
      form.append('files', new File([file.text], `${app}/${file.path}`, { type: 'application/x-yaml' }));
    let res: Response;
    try {
      res = await apiFetch(`/dev/apps/${enc(app)}/builder/save${tmp ? '?tmp=true' : ''}`, {
        method: 'POST',
        body: form,
      });
    } catch {
      throw new BuilderError('The ADK server cannot be reached. Is `adk web` still running?');
    }
    if (!res.ok) throw new BuilderError(await detailOf(res));
    // ADK's builder answers false for a save it could not make.
    if ((await res.json().catch(() => false)) !== true)
      throw new BuilderError('The server did not save the files.');
  },

  /** Whether `adk web` holds a draft of the app (it serves one as `draftAppName(app)`). */
  async hasDraft(app: string): Promise<boolean> {
    try {
      const res = await apiFetch(`/apps/${enc(draftAppName(app))}/app-info`);
      // A draft that fails to load is a draft too (500); no draft is 404.
      return res.status !== 404 && res.status !== 400;
    } catch {
      return false;
    }
  },

  /** Deletes the user's sessions with the draft (before it goes: they can no longer be opened after). */
  async deleteDraftSessions(app: string, user: string): Promise<void> {
    const base = `/apps/${enc(draftAppName(app))}/users/${enc(user)}/sessions`;
    const res = await apiFetch(base);
    if (!res.ok) return;
    const sessions = (await res.json()) as { id: string }[];
    await Promise.all(sessions.map((s) => apiFetch(`${base}/${enc(s.id)}`, { method: 'DELETE' })));
  },

  /** Drops the draft. */
  async cancel(app: string): Promise<void> {
    const res = await apiFetch(`/dev/apps/${enc(app)}/builder/cancel`, { method: 'POST' });
    if (!res.ok) throw new BuilderError(await detailOf(res));
  },

  /**
   * Whether the app is written in YAML: `language` of its app-info (as in `list-apps?detailed=true`);
   * an app that does not load says so through the builder (its root_agent.yaml can be read), so a
   * broken YAML app can still be fixed in the Builder.
   */
  async isYamlApp(app: string): Promise<boolean> {
    try {
      const res = await apiFetch(`/apps/${enc(app)}/app-info`);
      if (res.ok) return ((await res.json()) as { language?: string }).language === 'yaml';
      if (res.status === 404) return false;
    } catch {
      return false;
    }
    try {
      const res = await apiFetch(`/dev/apps/${enc(app)}/builder?ts=${Date.now()}`);
      return res.ok && (await res.text()).trim() !== '';
    } catch {
      return false;
    }
  },
};
