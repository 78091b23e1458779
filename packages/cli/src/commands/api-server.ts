import type { Command } from 'commander';
import type { CommandModule } from './command.js';
import { addServeOptions, type ServeOptions, serve } from './serve.js';
import { parseCount } from './worker.js';

export const apiServerCommand: CommandModule = (program: Command) => {
  addServeOptions(
    program
      .command('api_server')
      .description("serve a folder of agents over ADK's HTTP API (no web UI); each app is also an A2A agent"),
  )
    .option(
      '--workers <n>',
      'queue background runs for workers (needs DATABASE_URL=postgres://…) and start N `adk worker` processes beside this one (0: workers run elsewhere)',
      parseCount,
    )
    .option(
      '--conformance',
      "record and replay runs whose state_delta carries adk-python's _adk_recordings_config / _adk_replay_config (for adk-python's `adk conformance` client)",
    )
    .action((dir: string, options: ServeOptions) => serve(dir, options, undefined, { reload: false }));
};
