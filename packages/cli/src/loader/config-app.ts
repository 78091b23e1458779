import { dirname } from 'node:path';
import { type BaseAgent, describeError, isAdkError } from '@adk/core';
import { AgentLoadError } from '../errors.js';
import { isEsModule } from './app-loader.js';
import { moduleUrl } from './reload-hooks.js';
import { enableTypeScript } from './typescript.js';

/** The file of an app written in YAML (ADK's Agent Config), tried after the code entry files. */
export const CONFIG_ENTRY_FILE = 'root_agent.yaml';

export function isConfigEntry(file: string): boolean {
  return file.endsWith('.yaml') || file.endsWith('.yml');
}

/**
 * Builds the agent of a `root_agent.yaml` with @adk/config (an optional peer, loaded only for YAML
 * apps). Code it references (`my_app.tools.get_weather`) may be TypeScript. Errors are
 * AgentLoadErrors whose message is the config error's: file, YAML path, expected and found. With a
 * `version` (a reloadable loader), the modules it names load as fresh copies, like a code app's.
 * `appRoot` (default: the file's folder) is where its code references resolve and must stay: the
 * builder's draft, kept in `{app}/tmp/{app}/`, uses the app's own code.
 */
export async function loadConfigAgent(
  file: string,
  version?: number,
  appRoot: string = dirname(file),
): Promise<BaseAgent> {
  let config: typeof import('@adk/config');
  try {
    config = await import('@adk/config');
  } catch (error) {
    throw new AgentLoadError(
      `${file} is a YAML agent: install @adk/config to load it (${describeError(error)})`,
      { cause: error, details: { file } },
    );
  }
  try {
    return await config.loadAgentFromConfig(file, {
      appRoot,
      importModule: async (module) => {
        await enableTypeScript();
        // A query string cannot make a fresh copy of a CommonJS module (Node caches those by path,
        // and finds no file with the query): such a module (no "type": "module" above it) loads
        // once, and keeps its first version on reload.
        const url = moduleUrl(module, isEsModule(module) ? version : undefined);
        return (await import(url)) as Record<string, unknown>;
      },
    });
  } catch (error) {
    if (isAdkError(error)) {
      throw new AgentLoadError(error.message, {
        cause: error,
        details: { file, ...(error.details ?? {}), configCode: error.code },
      });
    }
    throw new AgentLoadError(`Failed to load ${file}: ${describeError(error)}`, {
      cause: error,
      details: { file },
    });
  }
}
