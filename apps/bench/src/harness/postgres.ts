import { spawn } from 'node:child_process';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
// The test suites' Postgres lookup and CI rule, shared so that the bench finds the same binaries.
import {
  findPostgresBinDir,
  findRunuser,
  postgresUnavailable,
  SYSTEM_BIN_DIRS,
} from '../../../../packages/session-sql/src/__fixtures__/postgres-cluster.js';
import { freePort } from './free-port.js';

export interface PostgresCluster {
  url: string;
  version: string;
  stop(): Promise<void>;
}

/** The newest Postgres bin folder on this machine (PG_BIN, /usr/lib/postgresql, PATH), or undefined. */
export function findPostgresBin(): string | undefined {
  return findPostgresBinDir();
}

/**
 * Why a part of the bench that needs Postgres did not get it, for the report's skipped list; in CI
 * (CI=true) this throws instead, so that the run fails with the reason.
 */
export function postgresSkipped(error: unknown): string {
  return postgresUnavailable(error instanceof Error ? error.message : String(error));
}

interface RunAs {
  user: string;
  runuser: string;
}

function run(command: string, args: string[], asUser?: RunAs): Promise<string> {
  const [cmd, argv] = asUser
    ? [asUser.runuser, ['-u', asUser.user, '--', command, ...args]]
    : [command, args];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`${command} exited with ${code}: ${output.trim().slice(-400)}`)),
    );
  });
}

/**
 * Starts a throwaway Postgres cluster on a loopback port with the stock settings (durable commits),
 * as the unprivileged `postgres` user when this process is root. Throws when Postgres is missing.
 */
export async function startPostgres(): Promise<PostgresCluster> {
  const bin = findPostgresBin();
  if (!bin)
    throw new Error('Postgres is not installed (no initdb in PG_BIN, /usr/lib/postgresql/*/bin or on PATH)');
  let asUser: RunAs | undefined;
  if (process.getuid?.() === 0) {
    const runuser = findRunuser();
    if (!runuser) {
      throw new Error(`running as root and runuser is neither on PATH nor in ${SYSTEM_BIN_DIRS.join(', ')}`);
    }
    asUser = { user: 'postgres', runuser };
  }
  const dir = await mkdtemp('/tmp/adk-bench-pg-');
  if (asUser) {
    const uid = Number((await run('id', ['-u', asUser.user])).trim());
    const gid = Number((await run('id', ['-g', asUser.user])).trim());
    await chown(dir, uid, gid);
  }
  await chmod(dir, 0o700);
  const data = join(dir, 'data');
  const port = await freePort();
  await run(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'bench', '-A', 'trust', '--no-sync', '-E', 'UTF8'],
    asUser,
  );
  await run(
    join(bin, 'pg_ctl'),
    [
      '-D',
      data,
      '-l',
      join(dir, 'log'),
      '-w',
      '-o',
      `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c max_connections=100`,
      'start',
    ],
    asUser,
  );
  const versionText = await run(join(bin, 'postgres'), ['--version']);
  const version = versionText.match(/\d+(\.\d+)*/)?.[0] ?? 'unknown';
  return {
    url: `postgres://bench@127.0.0.1:${port}/postgres`,
    version,
    async stop() {
      await run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'], asUser).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A new, empty database on `cluster` after a checkpoint, so a run neither inherits the rows and
 * dirty pages of the runs before it nor pays for their checkpoint; `drop()` removes it.
 */
export async function freshDatabase(
  cluster: PostgresCluster,
  name: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const { default: pg } = await import('pg');
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  await admin(`create database ${name}`);
  await admin('checkpoint');
  const url = new URL(cluster.url);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}
