import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { BIN, offlineEnv } from './cli.js';

export interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stdout: () => string;
  stderr: () => string;
  stop: () => Promise<void>;
}

/** Starts `adk <command> <dir> --port 0 <args>` (SQLite sessions in `dataDir`) and waits until it is ready. */
export async function startServer(
  command: string,
  dir: string,
  dataDir: string,
  args: string[] = [],
): Promise<Served> {
  const child = spawn(process.execPath, [BIN, command, dir, '--port', '0', '--data-dir', dataDir, ...args], {
    env: offlineEnv({ DATABASE_URL: `sqlite://${join(dataDir, 'sessions.db')}` }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${stdout}\n${stderr}`)), 30_000);
    const check = () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match?.[1] && stdout.includes('Press Ctrl-C')) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', check);
    void exited.then(() => reject(new Error(`server exited:\n${stdout}\n${stderr}`)));
  });
  return {
    child,
    url,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function until<T>(
  what: string,
  check: () => T | Promise<T>,
  timeoutMs = 10_000,
): Promise<Exclude<T, undefined | false>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as Exclude<T, undefined | false>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
