/**
 * Vitest globalSetup: starts a throwaway PostgreSQL cluster on a free loopback port for the
 * Postgres suites and removes it afterwards. Without Postgres binaries the suites are skipped with
 * the reason printed, except in CI (CI=true), where a missing server is a failure.
 * ADK_TEST_POSTGRES_URL points the suites at an existing server instead; ADK_SKIP_POSTGRES skips them
 * (outside CI).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import type { TestProject } from 'vitest/node';

export interface PostgresTarget {
  url?: string;
  skipReason?: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PostgresTarget;
  }
}

function findBinDir(): string | undefined {
  const fromEnv = process.env.PG_BIN;
  if (fromEnv && existsSync(join(fromEnv, 'initdb'))) return fromEnv;
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], 'bin');
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'initdb');
    if (dir && existsSync(candidate)) return dirname(realpathSync(candidate));
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

function userIds(name: string): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  const skip = (reason: string) => {
    if (process.env.CI === 'true' || process.env.CI === '1') {
      throw new Error(`Postgres suites cannot run in CI: ${reason}`);
    }
    console.warn(`[session-sql] Postgres suites skipped: ${reason}`);
    project.provide('postgres', { skipReason: reason });
    return undefined;
  };

  const external = process.env.ADK_TEST_POSTGRES_URL;
  if (external) {
    project.provide('postgres', { url: external });
    return undefined;
  }
  if (process.env.ADK_SKIP_POSTGRES) return skip('ADK_SKIP_POSTGRES is set');
  const bin = findBinDir();
  if (!bin) return skip('no PostgreSQL server binaries (initdb) found; install the postgresql package');

  // initdb and postgres refuse to run as root: run them as the unprivileged `postgres` user.
  const isRoot = process.getuid?.() === 0;
  const runAs = isRoot ? userIds('postgres') : undefined;
  if (isRoot && !runAs)
    return skip('running as root and there is no unprivileged "postgres" user to run the server');
  const run = (command: string, args: string[]) => {
    const [file, argv] = isRoot
      ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]]
      : [join(bin, command), args];
    return execFileSync(file, argv, { stdio: 'pipe', encoding: 'utf8', timeout: 120_000 });
  };

  const dir = mkdtempSync(join(tmpdir(), 'adk-session-sql-pg-'));
  chmodSync(dir, 0o700);
  if (runAs) chownSync(dir, runAs.uid, runAs.gid);
  const data = join(dir, 'data');
  const port = await freePort();
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`,
      'start',
    ]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const detail = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
    return skip(`could not start a throwaway cluster with ${bin}: ${detail}`);
  }
  console.info(`[session-sql] throwaway Postgres cluster on 127.0.0.1:${port} (${bin})`);
  project.provide('postgres', { url: `postgres://postgres@127.0.0.1:${port}/postgres` });
  return () => {
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
