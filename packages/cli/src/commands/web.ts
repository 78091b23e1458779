import type { AdkServerUi } from '@adk/server';
import type { Command } from 'commander';
import type { CommandModule } from './command.js';
import { addServeOptions, type ServeOptions, serve } from './serve.js';

/** The web UI of `@adk/dev-ui`, or undefined (with a notice) when it is not installed. */
async function loadDevUi(): Promise<AdkServerUi | undefined> {
  try {
    const { devUi } = await import('@adk/dev-ui');
    return devUi();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND') throw error;
    process.stderr.write('@adk/dev-ui is not installed: serving the API only (install it for the web UI).\n');
    return undefined;
  }
}

export const webCommand: CommandModule = (program: Command) => {
  addServeOptions(
    program
      .command('web')
      .description('serve a folder of agents with the web UI at /dev-ui/ (and the API of api_server)'),
  ).action(async (dir: string, options: ServeOptions) =>
    serve(dir, options, await loadDevUi(), { reload: true }),
  );
};
