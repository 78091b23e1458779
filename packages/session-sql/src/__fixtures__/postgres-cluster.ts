/**
 * Vitest globalSetup: starts a throwaway PostgreSQL cluster on a free loopback port for the
 * Postgres suites and removes it afterwards. Without Postgres (no binaries, no way to run them, a
 * cluster that does not start) the suites are skipped with the reason printed, except in CI
 * (CI=true), where that is a failure of the run naming the reason: `postgresUnavailable` is the one
 * place that rule lives, and every harness that starts Postgres for tests (session-sql, server, cli,
 * the bench) goes through it.
 * ADK_TEST_POSTGRES_URL points the suites at an existing server instead; ADK_SKIP_POSTGRES skips them
 * (outside CI).
 */
import { execFileSync } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  chownSync,
  constants,
  existsSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

export interface PostgresTarget {
  url?: string;
  skipReason?: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PostgresTarget;
  }
}

/** Where system tools live even when PATH leaves them out (root shells often lack the sbin folders). */
export const SYSTEM_BIN_DIRS: readonly string[] = [
  '/usr/local/sbin',
  '/usr/local/bin',
  '/usr/sbin',
  '/sbin',
  '/usr/bin',
  '/bin',
];

/** Where Debian and Ubuntu install the PostgreSQL server, one folder per major version. */
export const POSTGRES_ROOTS: readonly string[] = ['/usr/lib/postgresql'];

export interface LookupOptions {
  /** The environment to read PATH, PG_BIN and CI from; process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** Folders searched after PATH; SYSTEM_BIN_DIRS by default. */
  systemDirs?: readonly string[];
  /** Folders holding `<version>/bin/initdb`; POSTGRES_ROOTS by default. */
  postgresRoots?: readonly string[];
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The full path of an executable: the first hit on PATH, then in the usual system folders. */
export function findExecutable(name: string, options: LookupOptions = {}): string | undefined {
  const env = options.env ?? process.env;
  const dirs = [
    ...(env.PATH ?? '').split(delimiter).filter(Boolean),
    ...(options.systemDirs ?? SYSTEM_BIN_DIRS),
  ];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** `runuser` (util-linux), which lives in /usr/sbin or /sbin and so is often missing from root's PATH. */
export function findRunuser(options: LookupOptions = {}): string | undefined {
  return findExecutable('runuser', options);
}

/** The folder holding initdb, pg_ctl and postgres: PG_BIN, the newest packaged version, or PATH. */
export function findPostgresBinDir(options: LookupOptions = {}): string | undefined {
  const env = options.env ?? process.env;
  const fromEnv = env.PG_BIN;
  if (fromEnv && isExecutableFile(join(fromEnv, 'initdb'))) return fromEnv;
  for (const root of options.postgresRoots ?? POSTGRES_ROOTS) {
    if (!existsSync(root)) continue;
    const versions = readdirSync(root)
      .filter((v) => isExecutableFile(join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], 'bin');
  }
  const initdb = findExecutable('initdb', { env, systemDirs: options.systemDirs ?? SYSTEM_BIN_DIRS });
  return initdb ? dirname(realpathSync(initdb)) : undefined;
}

/** True when the environment says this is a CI run (CI=true, as CI services set it, or CI=1). */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CI === 'true' || env.CI === '1';
}

/** Thrown in CI when a suite needs Postgres and it cannot be started. */
export class PostgresUnavailableError extends Error {
  override readonly name = 'PostgresUnavailableError';
  constructor(readonly reason: string) {
    super(`Postgres suites cannot run in CI (CI=true) and are not skipped there: ${reason}`);
  }
}

/**
 * The rule for a test suite that needs Postgres and cannot start it: in CI it fails the run with the
 * reason (throws PostgresUnavailableError); elsewhere it returns the reason for the caller to print
 * and skip.
 */
export function postgresUnavailable(reason: string, env: NodeJS.ProcessEnv = process.env): string {
  if (isCi(env)) throw new PostgresUnavailableError(reason);
  return reason;
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

/** What the harness needs of Vitest's TestProject: somewhere to hand the target to the suites. */
export interface ProvidesPostgres {
  provide(key: 'postgres', value: PostgresTarget): void;
}

export interface StartTestPostgresOptions extends LookupOptions {
  /** Where the skip reason is printed outside CI; console.warn by default. */
  warn?: (message: string) => void;
}

/**
 * Starts the throwaway cluster and provides its URL, or provides why the suites are skipped (and
 * prints it) — or, in CI, throws with that reason. Resolves with the teardown.
 */
export async function startTestPostgres(
  project: ProvidesPostgres,
  options: StartTestPostgresOptions = {},
): Promise<(() => void) | undefined> {
  const env = options.env ?? process.env;
  const warn = options.warn ?? ((message: string) => console.warn(message));
  const skip = (reason: string) => {
    postgresUnavailable(reason, env);
    warn(`[postgres] Postgres suites skipped: ${reason}`);
    project.provide('postgres', { skipReason: reason });
    return undefined;
  };

  const external = env.ADK_TEST_POSTGRES_URL;
  if (external) {
    project.provide('postgres', { url: external });
    return undefined;
  }
  if (env.ADK_SKIP_POSTGRES) return skip('ADK_SKIP_POSTGRES is set');
  const bin = findPostgresBinDir(options);
  if (!bin) return skip('no PostgreSQL server binaries (initdb) found; install the postgresql package');

  // initdb and postgres refuse to run as root: run them as the unprivileged `postgres` user.
  const isRoot = process.getuid?.() === 0;
  const runAs = isRoot ? userIds('postgres') : undefined;
  if (isRoot && !runAs)
    return skip('running as root and there is no unprivileged "postgres" user to run the server');
  const runuser = isRoot ? findRunuser(options) : undefined;
  if (isRoot && !runuser) {
    const where = [...(options.systemDirs ?? SYSTEM_BIN_DIRS)].join(', ');
    return skip(`running as root and runuser (util-linux) is neither on PATH nor in ${where}`);
  }
  const run = (command: string, args: string[]) => {
    const [file, argv] = runuser
      ? [runuser, ['-u', 'postgres', '--', join(bin, command), ...args]]
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
  console.info(`[postgres] throwaway Postgres cluster on 127.0.0.1:${port} (${bin})`);
  project.provide('postgres', { url: `postgres://postgres@127.0.0.1:${port}/postgres` });
  return () => {
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** Vitest globalSetup entry. */
export default function setup(project: ProvidesPostgres): Promise<(() => void) | undefined> {
  return startTestPostgres(project);
}
