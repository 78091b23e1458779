import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { BIN } from './cli.js';

export interface PostgresTarget {
  url?: string;
  skipReason?: string;
}
type StartCluster = (project: unknown) => Promise<(() => void) | undefined>;

// session-sql's throwaway-cluster helper (its Vitest globalSetup), run for one test file.
const HELPER = new URL('../../../session-sql/src/__fixtures__/postgres-cluster.ts', import.meta.url).href;

/** Starts a throwaway Postgres cluster; `target.url` is unset (with the reason) where none can run. */
export async function startPostgres(): Promise<{ target: PostgresTarget; stop: () => void }> {
  const startCluster = ((await import(HELPER)) as { default: StartCluster }).default;
  let target: PostgresTarget = {};
  const stop = await startCluster({ provide: (_key: string, value: PostgresTarget) => (target = value) });
  return { target, stop: stop ?? (() => {}) };
}

export interface AdkProcess {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  exited: Promise<number | null>;
  /** What `ready` matched in the output. */
  match: RegExpExecArray;
}

/** Starts `adk <args>` and resolves once its output matches `ready` (60 s at most). */
export function startAdk(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<AdkProcess> {
  const child = spawn(process.execPath, [BIN, ...args], { env });
  let output = '';
  const append = (d: string) => {
    output += d;
  };
  child.stdout.setEncoding('utf8').on('data', append);
  child.stderr.setEncoding('utf8').on('data', append);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`adk ${args[0]} did not start:\n${output}`)), 60_000);
    child.stdout.on('data', () => {
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, output: () => output, exited, match });
      }
    });
    void exited.then(() => reject(new Error(`adk ${args[0]} exited:\n${output}`)));
  });
}
