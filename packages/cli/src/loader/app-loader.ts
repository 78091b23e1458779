import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { BaseAgent, describeError } from '@adk/core';
import { AgentLoadError } from '../errors.js';
import { CONFIG_ENTRY_FILE, isConfigEntry, loadConfigAgent } from './config-app.js';
import { EnvFiles } from './env-files.js';
import { describeLoadFailure } from './load-failure.js';
import { enableReloadableImports, moduleUrl } from './reload-hooks.js';
import { enableTypeScript } from './typescript.js';

/** The file names tried, in order, in an app folder (before its package.json); code before YAML. */
export const ENTRY_FILES = [
  'agent.ts',
  'agent.mts',
  'agent.js',
  'agent.mjs',
  'index.ts',
  'index.mts',
  'index.js',
  'index.mjs',
  CONFIG_ENTRY_FILE,
];

/** The exports tried, in order: ADK's convention, then a default export. */
export const AGENT_EXPORTS = ['rootAgent', 'default', 'root_agent'];

const APP_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** The builder keeps an app's draft in `{app}/tmp/{app}/` (as ADK's builder does). */
export const DRAFT_FOLDER = 'tmp';
/** App names of builder drafts start with this; no listed app does (folders starting with `_` are not apps). */
export const DRAFT_PREFIX = '__draft__';

/** The app name the draft of `app` is served under: `__draft__{app}`. */
export function draftAppName(app: string): string {
  return `${DRAFT_PREFIX}${app}`;
}

/** The app a draft name belongs to, or undefined for a name that is not a draft's. */
export function appOfDraft(name: string): string | undefined {
  if (!name.startsWith(DRAFT_PREFIX)) return undefined;
  const app = name.slice(DRAFT_PREFIX.length);
  return APP_NAME.test(app) && !app.startsWith(DRAFT_PREFIX) ? app : undefined;
}

/** The module file of an app folder, or undefined when it has none. */
export function findEntry(folder: string): string | undefined {
  for (const name of ENTRY_FILES) {
    const file = join(folder, name);
    if (existsSync(file)) return file;
  }
  const pkgFile = join(folder, 'package.json');
  if (!existsSync(pkgFile)) return undefined;
  try {
    const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as {
      main?: string;
      exports?: string | Record<string, unknown>;
    };
    const dot = typeof pkg.exports === 'object' && pkg.exports ? pkg.exports['.'] : pkg.exports;
    const target =
      typeof dot === 'string'
        ? dot
        : dot && typeof dot === 'object'
          ? ((dot as Record<string, unknown>).import ?? (dot as Record<string, unknown>).default)
          : pkg.main;
    if (typeof target === 'string' && existsSync(join(folder, target))) return join(folder, target);
  } catch {
    // A broken package.json is reported when the app is loaded.
    return pkgFile;
  }
  return undefined;
}

function isAgent(value: unknown): value is BaseAgent {
  if (value instanceof BaseAgent) return true;
  // A second copy of @adk/core (e.g. a scaffold with its own node_modules) fails instanceof.
  const v = value as { name?: unknown; run?: unknown; subAgents?: unknown } | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.name === 'string' &&
    typeof v.run === 'function' &&
    Array.isArray(v.subAgents)
  );
}

/** Whether Node loads `file` as an ES module: by extension, else by the nearest package.json `type`. */
export function isEsModule(file: string): boolean {
  if (/\.m[jt]sx?$/.test(file)) return true;
  if (/\.c[jt]sx?$/.test(file)) return false;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const pkgFile = join(dir, 'package.json');
    if (existsSync(pkgFile)) {
      try {
        return (JSON.parse(readFileSync(pkgFile, 'utf8')) as { type?: unknown }).type === 'module';
      } catch {
        return false;
      }
    }
    if (dirname(dir) === dir) return false;
  }
}

/**
 * Imports one agent module (TypeScript included) and returns its root agent. `version` loads a
 * fresh copy of the module and of the files it imports from its folder (see `enableReloadableImports`).
 */
export async function loadAgentModule(file: string, options: { version?: number } = {}): Promise<BaseAgent> {
  if (isConfigEntry(file)) return loadConfigAgent(file, options.version);
  if (file.endsWith('package.json')) {
    throw new AgentLoadError(`Could not read the entry point from ${file}`, { details: { file } });
  }
  await enableTypeScript();
  let module: Record<string, unknown>;
  try {
    module = (await import(moduleUrl(file, options.version))) as Record<string, unknown>;
  } catch (error) {
    throw new AgentLoadError(`Failed to load agent module ${file}: ${describeError(error)}`, {
      cause: error,
      details: { file },
    });
  }
  for (const name of AGENT_EXPORTS) {
    const value = await module[name];
    if (isAgent(value)) return value;
  }
  const found = Object.keys(module);
  throw new AgentLoadError(
    `${file} exports no agent: export the root agent as \`rootAgent\` (or as the default export). Its exports: ${found.length > 0 ? found.join(', ') : 'none'}.`,
    { details: { file, exports: found } },
  );
}

export interface AppLoaderOptions {
  /** Load `.env` from the agents folder and from each app folder (default true). */
  loadEnv?: boolean;
  /**
   * Apps can be reloaded (`reload(name)`) with fresh module URLs; every load imports a fresh copy
   * (default false). See {@link AppLoader.reload}.
   */
  reloadable?: boolean;
}

/** Why an app's latest load failed: the file at fault (relative to the agents folder) and the message. */
export interface AppLoadIssue {
  app: string;
  file: string;
  message: string;
  /** When it failed (ISO 8601). */
  at: string;
  /** True when an earlier good version keeps serving the app. */
  keptPrevious: boolean;
}

/** One app's reload state. */
export interface AppReloadState {
  /** Number of the version being served: 0 for the first load, then one more per successful load after it. */
  revision: number;
  /** When the served version was loaded (ISO 8601), once loaded. */
  loadedAt?: string;
  /** Set while the latest load of the app failed. */
  error?: AppLoadIssue;
}

/**
 * Apps from a folder: each subfolder with an `agent.ts` (or `index.ts`, a `root_agent.yaml`, or a package.json entry)
 * that exports `rootAgent` is an app named after the folder. A folder that is itself an agent is a
 * single app. Modules are loaded on first use and cached; a failed load is retried next time.
 * Implements `AdkAppLoader` of `@adk/server`.
 */
export class AppLoader {
  readonly dir: string;
  private readonly loadEnv: boolean;
  readonly reloadable: boolean;
  private readonly cache = new Map<string, Promise<BaseAgent>>();
  private readonly env = new EnvFiles();
  private readonly states = new Map<string, AppReloadState>();
  /** Module versions handed out so far: each import of a reloadable app gets a new one. */
  private versions = 0;
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(dir: string, options: AppLoaderOptions = {}) {
    this.dir = resolve(dir);
    this.loadEnv = options.loadEnv ?? true;
    this.reloadable = options.reloadable ?? false;
    if (!existsSync(this.dir) || !statSync(this.dir).isDirectory()) {
      throw new AgentLoadError(`Agents folder not found: ${this.dir}`, { details: { dir: this.dir } });
    }
    if (this.reloadable) enableReloadableImports(this.dir);
    if (this.loadEnv) this.env.apply(this.dir);
  }

  /** Whether the folder is itself one app rather than a folder of apps. */
  get isSingleApp(): boolean {
    return findEntry(this.dir) !== undefined;
  }

  /** The app folder of `name` (the agents folder itself for a single app; `{app}/tmp/{app}` for a draft). */
  folderOf(name: string): string {
    const draftOf = appOfDraft(name);
    if (draftOf !== undefined) return join(this.folderOf(draftOf), DRAFT_FOLDER, draftOf);
    return this.isSingleApp ? this.dir : join(this.dir, name);
  }

  /**
   * Whether `name` is an app: a listed one, or the builder's draft of one (`__draft__{app}`, served
   * from `{app}/tmp/{app}/root_agent.yaml` while that draft exists, never listed).
   */
  async has(name: string): Promise<boolean> {
    const draftOf = appOfDraft(name);
    if (draftOf === undefined) return this.cache.has(name) || (await this.list()).includes(name);
    return existsSync(join(this.folderOf(name), CONFIG_ENTRY_FILE)) && (await this.has(draftOf));
  }

  async list(): Promise<string[]> {
    if (this.isSingleApp) return [basename(this.dir)];
    const names: string[] = [];
    for (const entry of readdirSync(this.dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.') || entry.name.startsWith('_')) continue;
      if (entry.name === 'node_modules' || !APP_NAME.test(entry.name)) continue;
      if (findEntry(join(this.dir, entry.name))) names.push(entry.name);
    }
    return names.sort();
  }

  /** The module file of an app, or an AgentLoadError naming what was looked for. */
  entryOf(name: string): string {
    const draftOf = appOfDraft(name);
    if (draftOf !== undefined) {
      // A draft is YAML only: the builder writes nothing else.
      this.entryOf(draftOf);
      const entry = join(this.folderOf(name), CONFIG_ENTRY_FILE);
      if (!existsSync(entry)) {
        throw new AgentLoadError(`App "${draftOf}" has no draft (${entry} does not exist)`, {
          details: { app: name, file: entry },
        });
      }
      return entry;
    }
    const single = this.isSingleApp;
    if (!APP_NAME.test(name) || (single && name !== basename(this.dir))) {
      throw new AgentLoadError(`Unknown app "${name}" in ${this.dir}`, { details: { app: name } });
    }
    const folder = this.folderOf(name);
    const entry = findEntry(folder);
    if (!entry) {
      throw new AgentLoadError(
        `No agent module for app "${name}": expected ${join(folder, 'agent.ts')} (or index.ts, root_agent.yaml, or a package.json entry)`,
        { details: { app: name, folder } },
      );
    }
    return entry;
  }

  /** `yaml` for an app written as a root_agent.yaml, `typescript` for code (`list-apps?detailed=true`). */
  language(name: string): 'yaml' | 'typescript' {
    return isConfigEntry(this.entryOf(name)) ? 'yaml' : 'typescript';
  }

  load(name: string): Promise<BaseAgent> {
    let pending = this.cache.get(name);
    if (!pending) {
      pending = this.serialized(name, () => this.importApp(name));
      this.cache.set(name, pending);
      pending.catch(() => {
        if (this.cache.get(name) === pending) this.cache.delete(name);
      });
    }
    return pending;
  }

  /** The version of the app `load(name)` answers; changes after each successful reload. */
  revision(name: string): number {
    return this.states.get(name)?.revision ?? 0;
  }

  /** Each app's reload state (apps loaded or failed so far). */
  reloadStates(): Record<string, AppReloadState> {
    return Object.fromEntries([...this.states].map(([name, state]) => [name, { ...state }]));
  }

  /**
   * Loads the app again from its files (its `.env` and the agents folder's re-applied first). On
   * success the new agent is served from then on and `revision(name)` changes; on failure the
   * last good version (if any) stays, and the failure is kept in `reloadStates()` until a load
   * succeeds. `changed` (files that triggered the reload) names the file at fault when the error
   * does not. Needs `reloadable: true`, except for a builder draft (YAML, read afresh each time; the
   * modules it names stay those loaded first unless the loader is reloadable).
   */
  reload(name: string, changed: string[] = []): Promise<{ ok: true } | { ok: false; error: AppLoadIssue }> {
    if (!this.reloadable && appOfDraft(name) === undefined)
      throw new AgentLoadError('This AppLoader was not created with reloadable: true');
    return this.serialized(name, async () => {
      if (this.loadEnv) this.env.apply(this.dir);
      try {
        const agent = await this.importApp(name, changed, true);
        this.cache.set(name, Promise.resolve(agent));
        return { ok: true as const };
      } catch {
        // The last good version (if any) stays in the cache; the failure is in the app's state.
        return { ok: false as const, error: this.states.get(name)?.error as AppLoadIssue };
      }
    });
  }

  /** One load of an app at a time (a reload waits for the load before it). */
  private serialized<T>(name: string, task: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(name) ?? Promise.resolve();
    const next = previous.then(task, task);
    this.queues.set(
      name,
      next.catch(() => undefined),
    );
    return next;
  }

  private async importApp(name: string, changed: string[] = [], isReload = false): Promise<BaseAgent> {
    const state = this.states.get(name);
    try {
      const entry = this.entryOf(name);
      if (this.loadEnv && !this.isSingleApp) this.env.apply(this.folderOf(appOfDraft(name) ?? name));
      // Node caches CommonJS modules by path, where a query string cannot make a fresh copy.
      // A root_agent.yaml is read afresh on every load; the modules it names load as ES modules.
      const esm = isConfigEntry(entry) || isEsModule(entry);
      if (isReload && !esm) {
        throw new AgentLoadError(
          `${entry} is a CommonJS module: hot reload needs an ES module app ("type": "module" in its package.json, or .mts). Restart adk to load the change.`,
          { details: { file: entry } },
        );
      }
      const version = this.reloadable && esm ? ++this.versions : undefined;
      const draftOf = appOfDraft(name);
      // A draft is the app's YAML edited in the builder: the code it names is the app's own (a copy
      // in the draft folder would break the relative imports of the app's modules).
      const agent =
        draftOf === undefined
          ? await loadAgentModule(entry, version === undefined ? {} : { version })
          : await loadConfigAgent(entry, version, this.folderOf(draftOf));
      // Any earlier attempt (a version served, or a failure shown) makes this a new version.
      this.states.set(name, {
        revision: state === undefined ? 0 : state.revision + 1,
        loadedAt: new Date().toISOString(),
      });
      return agent;
    } catch (error) {
      const kept = isReload && state?.loadedAt !== undefined;
      const { file, message } = describeLoadFailure(error, {
        dir: this.dir,
        appFolder: this.folderOf(name),
        changed,
      });
      this.states.set(name, {
        revision: state?.revision ?? 0,
        ...(state?.loadedAt ? { loadedAt: state.loadedAt } : {}),
        error: {
          app: name,
          file: relative(this.dir, file).split(sep).join('/') || basename(file),
          message,
          at: new Date().toISOString(),
          keptPrevious: kept,
        },
      });
      throw error;
    }
  }
}

/** Loader for a folder of apps (or a single agent folder); see {@link AppLoader}. */
export function createAppLoader(dir: string, options?: AppLoaderOptions): AppLoader {
  return new AppLoader(dir, options);
}
