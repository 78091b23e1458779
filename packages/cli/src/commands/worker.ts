import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { defaultModelRegistry, describeError } from '@adk/core';
import type { Command } from 'commander';
import { CliUsageError } from '../errors.js';
import { createAppLoader } from '../loader/app-loader.js';
import { registerModelsFromEnv } from '../models/pick-model.js';
import type { CommandModule } from './command.js';
import { pauseSigningKeys } from './pause-signing-key.js';

export interface WorkerOptions {
  dataDir?: string;
  maxRuns: number;
}

/** Workers and API instances share runs through one Postgres; an embedded database has one process. */
export function requireSharedDatabase(what: string): string {
  const url = process.env.DATABASE_URL;
  if (!url || !/^postgres(ql)?:\/\//i.test(url))
    throw new CliUsageError(
      `${what} needs a shared Postgres: set DATABASE_URL=postgres://… (the same for the API instances and the workers)`,
    );
  return url;
}

/** Parses a count option (0–64). */
export function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 64)
    throw new Error(`Invalid count "${value}": use a whole number from 0 to 64`);
  return n;
}

/**
 * `adk worker`: claims queued runs (and runs whose process stopped) from Postgres and executes
 * them, resuming each from its events, until SIGINT/SIGTERM. Serves no HTTP.
 */
export async function runWorker(dir: string, options: WorkerOptions): Promise<void> {
  const databaseUrl = requireSharedDatabase('adk worker');
  const agentsDir = resolve(dir);
  registerModelsFromEnv(defaultModelRegistry);
  const { createAdkServer } = await import('@adk/server');
  const dataDir = resolve(options.dataDir ?? resolve(agentsDir, '.adk'));
  const pauseKeys = pauseSigningKeys(dataDir);
  const server = await createAdkServer({
    apps: createAppLoader(agentsDir),
    databaseUrl,
    dataDir,
    ...(pauseKeys ? { pauseSigning: { keys: pauseKeys } } : {}),
    a2a: false,
    tracing: false,
    runWorker: { pollIntervalMs: 200, maxConcurrentRuns: options.maxRuns },
  });
  process.stdout.write(
    `ADK worker ${process.pid} claiming runs of ${agentsDir} (Sessions: ${server.storage})\n`,
  );
  process.stdout.write('Press Ctrl-C to stop.\n');
  await new Promise<void>((done) => {
    const stop = () => {
      process.stdout.write('Stopping the worker (runs in progress get the grace period)…\n');
      server.close().then(done, (error: unknown) => {
        process.stderr.write(`adk: the worker did not close cleanly: ${describeError(error)}\n`);
        process.exitCode = 1;
        done();
      });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** Starts `count` `adk worker` processes beside this one; stopping them is the caller's. */
export function spawnWorkers(count: number, dir: string, dataDir: string | undefined): ChildProcess[] {
  const bin = join(dirname(createRequire(import.meta.url).resolve('@adk/cli/package.json')), 'bin', 'adk.js');
  const args = [bin, 'worker', dir, ...(dataDir ? ['--data-dir', dataDir] : [])];
  return Array.from({ length: count }, () =>
    spawn(process.execPath, args, { env: process.env, stdio: ['ignore', 'inherit', 'inherit'] }),
  );
}

/** Stops spawned workers with SIGTERM and waits for them (SIGKILL after `graceMs`). */
export async function stopWorkers(children: ChildProcess[], graceMs = 15_000): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
          child.once('exit', () => {
            clearTimeout(timer);
            done();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}

export const workerCommand: CommandModule = (program: Command) => {
  program
    .command('worker')
    .description('claim and execute queued runs (and runs of stopped processes) from Postgres; no HTTP')
    .argument('[agents_dir]', 'folder of apps, the same as the API instances serve', '.')
    .option('--data-dir <dir>', 'data folder (default: <agents_dir>/.adk)')
    .option('--max-runs <n>', 'runs this process executes at once', parseCount, 10)
    .addHelpText(
      'after',
      `
Needs DATABASE_URL=postgres://…, shared with the API instances (\`adk api_server --workers 0\` on
each queues background runs for workers; \`--workers N\` also starts N workers beside it). A run
whose process dies (kill -9) is taken over by another worker within a claim poll (its session
lock on Postgres is freed with its connection); after a lost host, once its heartbeat is stale
(3.5 s). Either way it is resumed from its events.`,
    )
    .action((dir: string, options: WorkerOptions) => runWorker(dir, options));
};
