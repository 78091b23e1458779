import { basename, dirname, relative, sep } from 'node:path';
import { type AppLoader, type AppLoadIssue, DRAFT_FOLDER, draftAppName } from './app-loader.js';

/** Files whose change reloads an app: code, YAML agent configs, JSON, and `.env`. */
const WATCHED = /\.(?:[cm]?[jt]sx?|ya?ml|json)$/;
/** Folders never watched: dependencies, data (sessions in `.adk`), VCS and other dot-folders. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage']);

export interface AppWatcherOptions {
  /** Quiet period after the last file event before an app reloads, ms (default 150). */
  debounceMs?: number;
  /** Called after each reload attempt (default: prints a line to stdout, or the error to stderr). */
  onReload?: (event: AppReloadEvent) => void;
}

export type AppReloadEvent =
  | { app: string; ok: true; revision: number; files: string[] }
  | { app: string; ok: false; error: AppLoadIssue; files: string[] };

export interface AppWatcher {
  /** Resolves once the initial scan is done (changes after it are seen). */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** Whether a path inside the agents folder can change an app. */
export function isWatchedPath(dir: string, path: string, isFile: boolean): boolean {
  const rel = relative(dir, path);
  if (rel === '') return true;
  const parts = rel.split(sep);
  const name = basename(path);
  for (const part of isFile ? parts.slice(0, -1) : parts)
    if (part.startsWith('.') || SKIPPED_DIRS.has(part)) return false;
  if (!isFile) return true;
  return name === '.env' || (!name.startsWith('.') && WATCHED.test(name));
}

function defaultReport(event: AppReloadEvent): void {
  if (event.ok) {
    process.stdout.write(
      `Reloaded app ${event.app} (version ${event.revision}): ${event.files.join(', ')}\n`,
    );
  } else {
    process.stderr.write(
      `adk: app ${event.app} failed to reload${event.error.keptPrevious ? ' (still serving the version loaded before)' : ''}: ${event.error.file}: ${event.error.message}\n`,
    );
  }
}

/**
 * Watches the agents folder (with chokidar: native events, new folders picked up, node_modules and
 * dot-folders never walked) and reloads the app a changed file belongs to once its files have been
 * quiet for `debounceMs`. A change at the top of the agents folder (its `.env`, a shared module)
 * reloads every app loaded so far.
 */
export async function watchApps(loader: AppLoader, options: AppWatcherOptions = {}): Promise<AppWatcher> {
  const { watch } = await import('chokidar');
  const dir = loader.dir;
  const debounceMs = options.debounceMs ?? 150;
  const report = options.onReload ?? defaultReport;
  const pending = new Map<string, { timer: NodeJS.Timeout; files: Set<string> }>();
  let closed = false;

  const appsOf = async (file: string): Promise<string[]> => {
    const known = Object.keys(loader.reloadStates());
    const parts = relative(dir, file).split(sep);
    // A file of a builder draft (`{app}/tmp/{app}/…`): the draft, if it was loaded; not the app.
    const [first, second, third] = loader.isSingleApp ? [basename(dir), ...parts] : parts;
    if (second === DRAFT_FOLDER && third !== undefined && third === first && parts.length > 2) {
      const draft = draftAppName(first);
      return known.includes(draft) ? [draft] : [];
    }
    if (loader.isSingleApp) return loader.list();
    if (parts.length > 1) {
      // A file in an app's folder: that app (a new app loads eagerly, a removed one reports it).
      const app = parts[0] as string;
      return known.includes(app) || (await loader.list()).includes(app) ? [app] : [];
    }
    // A file of the agents folder itself: every app loaded (or failed) so far.
    return known;
  };

  const schedule = (app: string, file: string) => {
    const entry = pending.get(app) ?? {
      timer: undefined as unknown as NodeJS.Timeout,
      files: new Set<string>(),
    };
    clearTimeout(entry.timer);
    entry.files.add(file);
    entry.timer = setTimeout(() => {
      pending.delete(app);
      if (closed) return;
      const files = [...entry.files];
      void loader.reload(app, files).then((result) => {
        if (closed) return;
        const shown = files.map((f) => relative(dir, f).split(sep).join('/') || basename(f));
        report(
          result.ok
            ? { app, ok: true, revision: loader.revision(app), files: shown }
            : { app, ok: false, error: result.error, files: shown },
        );
      });
    }, debounceMs);
    pending.set(app, entry);
  };

  const watcher = watch(dir, {
    ignoreInitial: true,
    // Without stats (chokidar asks first by name alone) only the folders on the way are judged.
    ignored: (path, stats) =>
      path === dir
        ? false
        : stats
          ? !isWatchedPath(dir, path, stats.isFile())
          : !isWatchedPath(dir, dirname(path), false),
  });
  watcher.on('all', (event, path) => {
    if (event === 'addDir' || event === 'unlinkDir') return;
    void appsOf(path).then((apps) => {
      for (const app of apps) schedule(app, path);
    });
  });
  watcher.on('error', (error) => process.stderr.write(`adk: watching ${dir}: ${String(error)}\n`));
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    ready,
    close: async () => {
      closed = true;
      for (const { timer } of pending.values()) clearTimeout(timer);
      pending.clear();
      await watcher.close();
    },
  };
}
