import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { READY_PREFIX, RESULT_PREFIX, SKIP_PREFIX } from '../workers/protocol.js';

export const benchRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const workersDir = join(benchRoot, 'src', 'workers');

export type ChildOutcome<T> = { kind: 'result'; value: T } | { kind: 'skip'; reason: string };

export interface RunChildOptions {
  /** Extra Node flags (before the script). */
  nodeArgs?: string[];
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  cwd?: string;
}

/**
 * Runs a worker module in a fresh Node process (TypeScript through tsx) so that its timings, RSS and
 * module cache belong to it alone, and returns the result line it printed.
 */
export function runWorker<T>(
  worker: string,
  args: unknown,
  options: RunChildOptions = {},
): Promise<ChildOutcome<T>> {
  const script = join(workersDir, worker);
  return runNode<T>(['--import', 'tsx', ...(options.nodeArgs ?? []), script, JSON.stringify(args)], options);
}

const repoRoot = join(benchRoot, '..', '..');
const ourPackages = ['core', 'models-claude', 'models-openai', 'session-sql', 'a2a'];

/**
 * Waits (up to `timeoutMs`) until every workspace package's dist/index.js exists: in a shared
 * checkout another `pnpm build` may be halfway through replacing a dist folder.
 */
export async function waitForBuiltPackages(timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const missing = () =>
    ourPackages.filter(
      (name) =>
        existsSync(join(repoRoot, 'packages', name, 'package.json')) &&
        !existsSync(join(repoRoot, 'packages', name, 'dist', 'index.js')),
    );
  while (missing().length > 0 && Date.now() < deadline) await sleep(1000);
}

/** A child that died because a workspace package's dist was missing (being rebuilt). */
function missingBuild(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return (
    message.includes('ERR_MODULE_NOT_FOUND') && /packages\/[\w-]+\/dist|node_modules\/@adk\//.test(message)
  );
}

/** Runs `node <argv>` and parses its result/skip line; retried when a workspace build was missing. */
export async function runNode<T>(argv: string[], options: RunChildOptions = {}): Promise<ChildOutcome<T>> {
  for (let attempt = 1; ; attempt++) {
    await waitForBuiltPackages();
    try {
      return await runNodeOnce<T>(argv, options);
    } catch (error) {
      if (attempt >= 3 || !missingBuild(error)) throw error;
      await sleep(2000);
    }
  }
}

function runNodeOnce<T>(argv: string[], options: RunChildOptions): Promise<ChildOutcome<T>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, {
      cwd: options.cwd ?? benchRoot,
      env: { ...process.env, NODE_ENV: 'production', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            child.kill('SIGKILL');
          }, options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      for (const line of stdout.split('\n')) {
        if (line.startsWith(RESULT_PREFIX)) {
          return resolve({ kind: 'result', value: JSON.parse(line.slice(RESULT_PREFIX.length)) as T });
        }
        if (line.startsWith(SKIP_PREFIX))
          return resolve({ kind: 'skip', reason: line.slice(SKIP_PREFIX.length) });
      }
      const why = signal ? `killed by ${signal}${timer ? ' (timeout)' : ''}` : `exited with code ${code}`;
      reject(new Error(`child ${argv.at(-2) ?? argv[0]} ${why}\n${tail(stderr || stdout)}`));
    });
  });
}

function tail(text: string, lines = 40): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}

export interface RunningWorker<T> {
  info: T;
  /** Sends a signal to the worker (see reportCpuOnSignals). */
  signal(name: NodeJS.Signals): void;
  /** Sends SIGTERM and resolves with the result line the worker printed on its way out, if any. */
  stop<R>(): Promise<R | undefined>;
}

/** Starts a long-running worker (a server) and resolves once it printed its ready line. */
export async function startWorker<T>(
  worker: string,
  args: unknown,
  timeoutMs = 30_000,
): Promise<RunningWorker<T>> {
  await waitForBuiltPackages();
  const script = join(workersDir, worker);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(args)], {
      cwd: benchRoot,
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let ready = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${worker} did not get ready in ${timeoutMs} ms\n${tail(stderr || stdout)}`));
    }, timeoutMs);
    const exited = new Promise<void>((done) => child.once('close', () => done()));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (ready) return;
      for (const line of stdout.split('\n')) {
        if (line.startsWith(READY_PREFIX)) {
          ready = true;
          stdout = '';
          clearTimeout(timer);
          resolve({
            info: JSON.parse(line.slice(READY_PREFIX.length)) as T,
            signal: (name) => child.kill(name),
            stop: async <R>() => {
              child.kill('SIGTERM');
              await exited;
              const result = stdout.split('\n').find((entry) => entry.startsWith(RESULT_PREFIX));
              return result ? (JSON.parse(result.slice(RESULT_PREFIX.length)) as R) : undefined;
            },
          });
          return;
        }
        if (line.startsWith(SKIP_PREFIX)) {
          clearTimeout(timer);
          reject(new SkipSignal(line.slice(SKIP_PREFIX.length)));
          return;
        }
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (!ready)
        reject(new Error(`${worker} exited with ${code} before it was ready\n${tail(stderr || stdout)}`));
    });
  });
}

/** A long-running worker reported that it cannot run (a package it needs is not there yet). */
export class SkipSignal extends Error {
  override readonly name = 'SkipSignal';
}

/** One line for a report: what failed, and the error the child printed, without the stack. */
export function summarizeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const lines = message.split('\n').map((line) => line.trim());
  const head = lines[0] ?? '';
  const rest = lines.slice(1).filter((line) => !line.startsWith('at '));
  const cause =
    rest.find((line) => /^[\w.]*Error\b.*:/.test(line)) ?? rest.find((line) => /error|ERR_/i.test(line));
  return cause && cause !== head ? `${head}: ${cause}` : head;
}
