import { dirname } from 'node:path';
import { type BaseAgent, describeError, isAdkError } from '@adk/core';
import { AgentLoadError } from '../errors.js';
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
 */
export async function loadConfigAgent(file: string, version?: number): Promise<BaseAgent> {
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
      appRoot: dirname(file),
      importModule: async (module) => {
        await enableTypeScript();
        return (await import(moduleUrl(module, version))) as Record<string, unknown>;
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
