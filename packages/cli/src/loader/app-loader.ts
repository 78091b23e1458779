import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BaseAgent, describeError } from '@adk/core';
import { AgentLoadError } from '../errors.js';
import { CONFIG_ENTRY_FILE, isConfigEntry, loadConfigAgent } from './config-app.js';
import { loadEnvFile } from './env-file.js';
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

/** Imports one agent module (TypeScript included), or builds a `root_agent.yaml`, and returns its root agent. */
export async function loadAgentModule(file: string): Promise<BaseAgent> {
  if (isConfigEntry(file)) return loadConfigAgent(file);
  if (file.endsWith('package.json')) {
    throw new AgentLoadError(`Could not read the entry point from ${file}`, { details: { file } });
  }
  await enableTypeScript();
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
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
  private readonly cache = new Map<string, Promise<BaseAgent>>();

  constructor(dir: string, options: AppLoaderOptions = {}) {
    this.dir = resolve(dir);
    this.loadEnv = options.loadEnv ?? true;
    if (!existsSync(this.dir) || !statSync(this.dir).isDirectory()) {
      throw new AgentLoadError(`Agents folder not found: ${this.dir}`, { details: { dir: this.dir } });
    }
    if (this.loadEnv) loadEnvFile(this.dir);
  }

  /** Whether the folder is itself one app rather than a folder of apps. */
  get isSingleApp(): boolean {
    return findEntry(this.dir) !== undefined;
  }

  private folderOf(name: string): string {
    return this.isSingleApp ? this.dir : join(this.dir, name);
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

  /** Drops an app's cached agent, so the next load reads its files again (after the builder saves). */
  forget(name: string): void {
    this.cache.delete(name);
  }

  load(name: string): Promise<BaseAgent> {
    let pending = this.cache.get(name);
    if (!pending) {
      pending = (async () => {
        const entry = this.entryOf(name);
        if (this.loadEnv && !this.isSingleApp) loadEnvFile(this.folderOf(name));
        return loadAgentModule(entry);
      })();
      this.cache.set(name, pending);
      pending.catch(() => {
        if (this.cache.get(name) === pending) this.cache.delete(name);
      });
    }
    return pending;
  }
}

/** Loader for a folder of apps (or a single agent folder); see {@link AppLoader}. */
export function createAppLoader(dir: string, options?: AppLoaderOptions): AppLoader {
  return new AppLoader(dir, options);
}
