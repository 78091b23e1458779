import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from './free-port.js';

export interface PostgresCluster {
  url: string;
  version: string;
  stop(): Promise<void>;
}

/** The newest Postgres bin folder on this machine, or undefined. */
export function findPostgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

function run(command: string, args: string[], asUser?: string): Promise<string> {
  const [cmd, argv] = asUser ? ['runuser', ['-u', asUser, '--', command, ...args]] : [command, args];
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
  if (!bin) throw new Error('Postgres is not installed (no /usr/lib/postgresql/*/bin/initdb)');
  const asUser = process.getuid?.() === 0 ? 'postgres' : undefined;
  const dir = await mkdtemp('/tmp/adk-bench-pg-');
  if (asUser) {
    const uid = Number((await run('id', ['-u', asUser])).trim());
    const gid = Number((await run('id', ['-g', asUser])).trim());
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
