import { spawn } from 'node:child_process';
import type { ExecResult, KillReason } from './base-environment.js';

export interface RunProcessOptions {
  argv: readonly string[];
  cwd?: string;
  env: Record<string, string>;
  stdin?: string | Uint8Array;
  timeoutMs: number;
  outputBytes: number;
  signal?: AbortSignal;
  uid?: number;
  gid?: number;
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Uint8Array) => void;
}

/**
 * Runs a host process with a wall-clock timeout and an output cap. The process gets its own
 * process group, and the whole group is killed on timeout, overflow or cancel, so children it
 * started die with it. The promise always resolves (spawn failures become exit code 127).
 */
export function runProcess(options: RunProcessOptions): Promise<ExecResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const [program, ...args] = options.argv;
    if (!program) {
      resolve(result(null, null, '', 'no command given', undefined, false, started, 127));
      return;
    }
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(options.gid === undefined ? {} : { gid: options.gid }),
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let kept = 0;
    let truncated = false;
    let killed: KillReason | undefined;
    let settled = false;

    const kill = (reason: KillReason) => {
      if (killed || settled) return;
      killed = reason;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const collect = (into: Buffer[], stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      if (truncated) return;
      const room = options.outputBytes - kept;
      const keep = chunk.length > room ? chunk.subarray(0, room) : chunk;
      if (keep.length > 0) options.onOutput?.(stream, keep);
      if (chunk.length > room) {
        into.push(keep);
        kept = options.outputBytes;
        truncated = true;
        kill('output_limit');
        return;
      }
      into.push(chunk);
      kept += chunk.length;
    };
    child.stdout.on('data', collect(stdout, 'stdout'));
    child.stderr.on('data', collect(stderr, 'stderr'));
    // A command that exits without reading its stdin must not fail the run with EPIPE.
    child.stdin.on('error', () => {});
    if (options.stdin !== undefined) child.stdin.end(options.stdin);
    else child.stdin.end();

    const timer = setTimeout(() => kill('timeout'), options.timeoutMs);
    const onAbort = () => kill('cancelled');
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (code: number | null, sig: NodeJS.Signals | null, spawnError?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      const err = Buffer.concat(stderr).toString('utf8');
      resolve(
        result(
          spawnError ? 127 : code,
          sig,
          Buffer.concat(stdout).toString('utf8'),
          spawnError ? `${err}${spawnError.message}` : err,
          killed,
          truncated,
          started,
        ),
      );
    };
    // Children left in the group (a backgrounded process) go with the command, killed as soon as
    // the command exits: while one of them lives the group id cannot be handed to a new process,
    // and once none does the kill finds nothing (ESRCH). Killing later, after 'close', could hit a
    // new group that reused the number.
    child.on('exit', () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* the group is gone */
      }
    });
    child.on('error', (error) => finish(null, null, error));
    child.on('close', (code, sig) => finish(code, sig));
  });
}

function result(
  exitCode: number | null,
  signal: string | null,
  stdout: string,
  stderr: string,
  killed: KillReason | undefined,
  outputTruncated: boolean,
  started: number,
  forcedExit?: number,
): ExecResult {
  return {
    exitCode: forcedExit ?? exitCode,
    signal,
    stdout,
    stderr,
    ...(killed ? { killed } : {}),
    outputTruncated,
    durationMs: performance.now() - started,
  };
}
