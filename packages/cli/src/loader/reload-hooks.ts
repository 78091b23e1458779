import * as nodeModule from 'node:module';
import { sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CliUsageError } from '../errors.js';

/** The query parameter that gives each reload of an app its own module URLs. */
export const RELOAD_PARAM = 'adk_reload';

const roots = new Set<string>();
let installed = false;

type ResolveResult = { url: string; format?: string | null; shortCircuit?: boolean };
type RegisterHooks = (hooks: {
  resolve: (
    specifier: string,
    context: { parentURL?: string },
    next: (specifier: string, context: { parentURL?: string }) => ResolveResult,
  ) => ResolveResult;
}) => unknown;

function inRoots(url: string): boolean {
  if (!url.startsWith('file:')) return false;
  let file: string;
  try {
    file = fileURLToPath(url);
  } catch {
    return false;
  }
  if (file.split(sep).includes('node_modules')) return false;
  for (const root of roots) if (file === root || file.startsWith(root + sep)) return true;
  return false;
}

/**
 * Lets an app be imported again with fresh code: an import of `file.ts?adk_reload=N` passes the
 * same `adk_reload=N` on to every module it imports from inside the agents folder (never to
 * node_modules, nor to files outside the folder such as a workspace's `@adk/core`), so each reload
 * evaluates the app's own module graph anew while the app keeps sharing its dependencies with the
 * CLI. Node caches modules by URL, so nothing else would re-read a changed file.
 *
 * Uses `module.registerHooks` (in-thread resolve hook; Node 22.15+), chained with tsx's hooks.
 */
export function enableReloadableImports(root: string): void {
  roots.add(root);
  if (installed) return;
  const registerHooks = (nodeModule as unknown as { registerHooks?: RegisterHooks }).registerHooks;
  if (typeof registerHooks !== 'function') {
    throw new CliUsageError(
      `Reloading apps needs module.registerHooks (Node 22.15 or later; this is ${process.version}): upgrade Node, or pass --no-reload`,
    );
  }
  registerHooks({
    resolve(specifier, context, next) {
      const resolved = next(specifier, context);
      const parent = context.parentURL;
      if (!parent?.includes(RELOAD_PARAM)) return resolved;
      let version: string | null;
      try {
        version = new URL(parent).searchParams.get(RELOAD_PARAM);
      } catch {
        return resolved;
      }
      if (version === null || !inRoots(resolved.url)) return resolved;
      const url = new URL(resolved.url);
      url.searchParams.set(RELOAD_PARAM, version);
      return { ...resolved, url: url.href };
    },
  });
  installed = true;
}

/** The URL of one version of a module file (`version` undefined: the plain URL). */
export function moduleUrl(file: string, version?: number): string {
  const url = pathToFileURL(file);
  if (version !== undefined) url.searchParams.set(RELOAD_PARAM, String(version));
  return url.href;
}
