import { dirname } from 'node:path';
import type { AppLoader } from '../loader/app-loader.js';

/**
 * Whether `error` says that @adk/eval itself is not installed — not that it is installed but
 * broken (it throws while loading, or one of its own dependencies is missing).
 */
function isEvalNotInstalled(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === 'ERR_MODULE_NOT_FOUND' &&
    typeof message === 'string' &&
    /Cannot find (?:package|module) '@adk\/eval(?:\/server)?'/.test(message)
  );
}

/**
 * The eval routes of `@adk/eval/server` for `adk web` / `adk api_server` (eval sets and results
 * kept in each app's own folder, as adk-python keeps them); none when @adk/eval is not installed.
 * Any other failure to load it is thrown, so a broken install is not mistaken for a missing one.
 */
export async function evalServerRoutes(
  agentsDir: string,
  loader: AppLoader,
): Promise<NonNullable<import('@adk/server').AdkServerOptions['routes']>> {
  let mod: typeof import('@adk/eval/server');
  try {
    mod = await import('@adk/eval/server');
  } catch (error) {
    if (isEvalNotInstalled(error)) return [];
    throw error;
  }
  // The eval routes keep an app's sets in `<agentsDir>/<app>/`. A folder that is itself the app
  // (`adk web .` inside an agent folder) is named after itself, so its parent plays agentsDir and
  // the sets land in the app's own folder, not in a subfolder of the same name.
  return [
    mod.evalRoutes({
      agentsDir: loader.isSingleApp ? dirname(loader.dir) : agentsDir,
      loadAgent: (name) => loader.load(name),
      hasApp: async (name) => (await loader.list()).includes(name),
    }),
  ];
}
