import type { AppLoader } from '../loader/app-loader.js';

/**
 * The eval routes of `@adk/eval/server` for `adk web` / `adk api_server` (eval sets and results
 * kept in the agents folder, as adk-python keeps them); none when @adk/eval is not installed.
 */
export async function evalServerRoutes(
  agentsDir: string,
  loader: AppLoader,
): Promise<NonNullable<import('@adk/server').AdkServerOptions['routes']>> {
  let mod: typeof import('@adk/eval/server');
  try {
    mod = await import('@adk/eval/server');
  } catch {
    return [];
  }
  return [
    mod.evalRoutes({
      agentsDir,
      loadAgent: (name) => loader.load(name),
      hasApp: async (name) => (await loader.list()).includes(name),
    }),
  ];
}
