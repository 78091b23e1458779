import { resolve } from 'node:path';
import { defaultModelRegistry, describeError } from '@adk/core';
import type { AdkServerUi } from '@adk/server';
import type { Command } from 'commander';
import { Option } from 'commander';
import type { ConformancePlugin } from '../conformance/plugin.js';
import { CliUsageError } from '../errors.js';
import { createAppLoader } from '../loader/app-loader.js';
import { watchApps } from '../loader/app-watcher.js';
import { describeModelChoice, registerModelsFromEnv } from '../models/pick-model.js';
import { builderRoutes } from './builder-routes.js';
import { collectList, parsePort } from './command.js';
import { evalServerRoutes } from './eval-routes.js';
import { pauseSigningKeys } from './pause-signing-key.js';
import { reloadRoutes } from './reload-route.js';
import { requireSharedDatabase, spawnWorkers, stopWorkers } from './worker.js';

export interface ServeOptions {
  host: string;
  port: number;
  token?: string;
  allowOrigins?: string[];
  allowHosts?: string[];
  dataDir?: string;
  a2a: boolean;
  logRequests?: boolean;
  /** `api_server --workers N`: background runs go to workers through Postgres; N started here. */
  workers?: number;
  /** Watch the agents folder and reload changed apps (`--reload` / `--no-reload`). */
  reload?: boolean;
  /** `api_server --conformance`: record and replay runs whose state carries ADK's conformance config. */
  conformance?: boolean;
  /** What spans capture (`--trace-content`): default full for web, metadata for api_server. */
  traceContent?: 'off' | 'metadata' | 'full';
}

/** The options `adk web` and `adk api_server` share. */
export function addServeOptions(command: Command): Command {
  return command
    .argument('[agents_dir]', 'folder of apps: each subfolder has an agent.ts exporting rootAgent', '.')
    .option(
      '--host <host>',
      'interface to bind (anything but 127.0.0.1/localhost exposes your agents)',
      '127.0.0.1',
    )
    .option('--port <port>', 'port to listen on (0 picks a free one)', parsePort, 8000)
    .addOption(
      new Option('--token <token>', 'require "Authorization: Bearer <token>" on every request').env(
        'ADK_SERVER_TOKEN',
      ),
    )
    .option('--allow-origins <origins>', 'origins allowed by CORS, comma-separated or repeated', collectList)
    .option('--allow-hosts <hosts>', 'extra Host header values to accept (e.g. a proxy name)', collectList)
    .option(
      '--data-dir <dir>',
      'where sessions, artifacts and A2A tasks are kept (default: <agents_dir>/.adk)',
    )
    .option('--no-a2a', 'do not serve each app over A2A at /a2a/{app}')
    .option('--log-requests', 'log each HTTP request and the steps of each run')
    .option('--reload', 'reload an app when its files change (default for web; off for api_server)')
    .option('--no-reload', 'do not watch the agents folder')
    .addOption(
      new Option(
        '--trace-content <mode>',
        'what traces capture of conversations: off, metadata, or full (model requests and responses); default full for web, metadata for api_server',
      )
        .choices(['off', 'metadata', 'full'])
        .env('ADK_TRACE_CONTENT'),
    )
    .addHelpText(
      'after',
      `
Storage: embedded PGlite in the data folder by default; set DATABASE_URL to use Postgres
(postgres://…) or SQLite (sqlite:///path/to/file.db); DATABASE_POOL_SIZE caps the Postgres
connection pool of this process (default 10). Model keys (GEMINI_API_KEY, GOOGLE_API_KEY,
ANTHROPIC_API_KEY, OPENAI_API_KEY) come from the environment or <agents_dir>/.env; with none, an
offline demo model answers.

Reload (adk web, unless --no-reload): a changed .ts/.js/.yaml/.json/.env file of an app reloads it
for the next run (runs in progress finish on the code they started with); a file that fails to load
keeps the last good version and is reported on stderr, in the web UI and at GET /dev/reload.`,
    );
}

/**
 * Starts the ADK server on a folder of apps and keeps it running until SIGINT/SIGTERM, then closes
 * it (letting runs finish within the server's grace period).
 */
export async function serve(
  dir: string,
  options: ServeOptions,
  ui: AdkServerUi | undefined,
  defaults: { reload: boolean },
): Promise<void> {
  const agentsDir = resolve(dir);
  const reload = options.reload ?? defaults.reload;
  const loader = createAppLoader(agentsDir, { reloadable: reload });
  registerModelsFromEnv(defaultModelRegistry);
  const plugins = options.conformance ? [await conformanceServing()] : [];
  const { createAdkServer, listenAdkServer } = await import('@adk/server');
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const databasePoolSize = poolSizeFromEnv(process.env.DATABASE_POOL_SIZE);
  const queue = options.workers !== undefined;
  if (queue) requireSharedDatabase('--workers');
  const dataDir = resolve(options.dataDir ?? resolve(agentsDir, '.adk'));
  // Conformance replays answer calls of sessions they create with events: they run unsigned.
  const pauseKeys = options.conformance ? undefined : pauseSigningKeys(dataDir);
  // A developer's own machine (web) sees whole conversations; a served API (api_server) keeps
  // metadata unless told (conformance replays compare recorded payloads: full).
  const traceContent = options.traceContent ?? (ui || options.conformance ? 'full' : 'metadata');
  const server = await createAdkServer({
    apps: loader,
    traceContent,
    ...(pauseKeys ? { pauseSigning: { keys: pauseKeys } } : {}),
    // With workers, this instance queues background runs and leaves claiming (and recovery) to them.
    ...(queue ? { execution: 'queue' as const, runWorker: false } : {}),
    dataDir,
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(databasePoolSize ? { databasePoolSize } : {}),
    ...(options.token ? { token: options.token } : {}),
    ...(options.allowOrigins ? { allowedOrigins: options.allowOrigins } : {}),
    ...(options.allowHosts ? { allowedHosts: options.allowHosts } : {}),
    ...(ui ? { ui } : {}),
    a2a: options.a2a,
    ...(plugins.length > 0 ? { plugins } : {}),
    // The YAML builder edits files on disk, so only the web UI's server offers it (as adk web does).
    routes: [
      ...reloadRoutes(loader, reload),
      ...(ui ? [builderRoutes(agentsDir, loader)] : []),
      ...(await evalServerRoutes(agentsDir, loader)),
    ],
    ...(options.logRequests ? { logRequests: true } : {}),
  });
  let listening: Awaited<ReturnType<typeof listenAdkServer>>;
  try {
    listening = await listenAdkServer(server, { host: options.host, port: options.port });
  } catch (error) {
    await server.close();
    if ((error as { code?: string }).code === 'EADDRINUSE') {
      throw new CliUsageError(
        `Port ${options.port} on ${options.host} is already in use: stop what uses it, or pick another port with --port (0 picks a free one)`,
        { cause: error },
      );
    }
    throw error;
  }
  // Apps that talk to the server they run in (over A2A) find it here; modules load lazily, after.
  const local = new URL(listening.url);
  if (local.hostname === '0.0.0.0' || local.hostname === '::' || local.hostname === '[::]')
    local.hostname = '127.0.0.1';
  process.env.ADK_SERVER_URL = local.origin;
  if (options.token) process.env.ADK_SERVER_TOKEN = options.token;
  const apps = await loader.list();
  const base = listening.url.replace(/\/$/, '');
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(`ADK server listening on ${base}`);
  if (ui) log(`Open the web UI: ${base}${ui.basePath.replace(/\/?$/, '/')}`);
  log(`Apps (${apps.length}) from ${agentsDir}: ${apps.join(', ') || 'none found'}`);
  log(`Model: ${describeModelChoice().description}`);
  log(`Sessions: ${server.storage}`);
  if (options.conformance)
    log(
      'Conformance: runs with _adk_recordings_config / _adk_replay_config in their state are recorded / replayed',
    );
  const workers = queue ? spawnWorkers(options.workers ?? 0, agentsDir, options.dataDir) : [];
  if (queue) log(`Background runs: queued for workers (${workers.length} started here)`);
  const watcher = reload ? await watchApps(loader) : undefined;
  if (watcher) {
    await watcher.ready;
    log(`Reload: watching ${agentsDir} for changes (--no-reload turns it off)`);
  }
  log('Press Ctrl-C to stop.');

  await new Promise<void>((done) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        process.stderr.write(`${signal} again: exiting now\n`);
        process.exit(130);
      }
      stopping = true;
      process.stdout.write(`\nStopping (${signal})…\n`);
      void watcher?.close();
      // Closes the HTTP listener and then the server: runs get the grace period, stores close.
      Promise.all([listening.close(), stopWorkers(workers)]).then(
        () => {
          process.stdout.write('Stopped.\n');
          done();
        },
        (error: unknown) => {
          process.stderr.write(`adk: the server did not close cleanly: ${describeError(error)}\n`);
          process.exitCode = 1;
          done();
        },
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/**
 * The record/replay plugin, with the replay model put in front of every model name; a call that is
 * not part of a replayed run goes to the model the name had before.
 */
async function conformanceServing(): Promise<ConformancePlugin> {
  const {
    ConformancePlugin,
    REPLAY_PROVIDER_NAME,
    ReplayModel,
    capabilitiesBeneathReplay,
    replayModelProvider,
  } = await import('../conformance/plugin.js');
  const plugin = new ConformancePlugin();
  const provider = replayModelProvider(
    new ReplayModel(plugin, (name) => defaultModelRegistry.resolve(name, { except: [REPLAY_PROVIDER_NAME] })),
    capabilitiesBeneathReplay(defaultModelRegistry),
  );
  // In front of every provider, the ones apps register when they load included.
  defaultModelRegistry.register(provider, { tier: 'override' });
  return plugin;
}

/** DATABASE_POOL_SIZE: at least 2 (one connection is kept for session run locks), or unset. */
function poolSizeFromEnv(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const size = Number(value);
  if (!Number.isInteger(size) || size < 2)
    throw new CliUsageError(
      `DATABASE_POOL_SIZE must be a whole number of connections, 2 or more (one is kept for session run locks), not "${value}"`,
    );
  return size;
}
