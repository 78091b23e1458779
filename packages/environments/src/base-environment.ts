import { ConfigError } from '@adk/core';

/**
 * Where code runs: a workspace of files and a way to run commands in it, under limits. The server
 * process never runs model-written code or skill scripts itself; it hands them to an environment.
 */

/** Limits on every command an environment runs. */
export interface EnvironmentLimits {
  /** Wall-clock time per command; past it the command and everything it started are killed. */
  timeoutMs: number;
  /** CPU seconds per process (RLIMIT_CPU); the kernel kills a process that uses more. */
  cpuSeconds: number;
  /** Address space per process in bytes (RLIMIT_AS; a container's memory limit). */
  memoryBytes: number;
  /** Output kept per command (stdout and stderr together); past it the command is killed. */
  outputBytes: number;
  /** Processes (and threads) a command may have at once (RLIMIT_NPROC in the sandbox's user namespace; a container's pids limit). */
  processes: number;
  /** Largest file a command may write, in bytes (RLIMIT_FSIZE). */
  fileSizeBytes: number;
}

export const defaultLimits: Readonly<EnvironmentLimits> = Object.freeze({
  timeoutMs: 30_000,
  cpuSeconds: 30,
  memoryBytes: 1024 * 1024 * 1024,
  outputBytes: 1024 * 1024,
  processes: 64,
  fileSizeBytes: 64 * 1024 * 1024,
});

export interface ExecOptions {
  /** Overrides the environment's `timeoutMs` for this command (never above it). */
  timeoutMs?: number;
  /** Written to the command's stdin, which is then closed. */
  stdin?: string | Uint8Array;
  /** Extra environment variables (the environment starts from a clean set). */
  env?: Record<string, string>;
  /** Working directory, relative to the workspace (default: the workspace). */
  cwd?: string;
  /** Stops the command (it is killed, `killed: 'cancelled'`). */
  signal?: AbortSignal;
  /** Receives output as it arrives (within the output cap), for progress and streaming. */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Uint8Array) => void;
}

/** Why the environment, not the command, ended a command. */
export type KillReason = 'timeout' | 'output_limit' | 'cancelled';

export interface ExecResult {
  /** Exit code, or null when the command ended by a signal. */
  exitCode: number | null;
  /** The signal that ended the command (`SIGKILL`, `SIGXCPU`, ...), or null. */
  signal: string | null;
  stdout: string;
  stderr: string;
  /** Set when the environment killed the command. */
  killed?: KillReason;
  /** The output was cut at `outputBytes`. */
  outputTruncated: boolean;
  durationMs: number;
}

/** A file in the workspace, by its path relative to the workspace root (`/` separated). */
export interface WorkspaceFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/**
 * The contract every environment implements. `start()` checks that the environment can run here
 * and throws `EnvironmentUnavailableError` when it cannot; nothing runs before it succeeds.
 */
export abstract class BaseEnvironment {
  /** A short name for messages and telemetry: `bubblewrap`, `podman`, `unsafe-local`, ... */
  abstract readonly kind: string;
  abstract readonly limits: Readonly<EnvironmentLimits>;

  abstract start(): Promise<void>;

  /** Runs `argv` (program and arguments, no shell) in the workspace. Never throws for a failing command. */
  abstract exec(argv: readonly string[], options?: ExecOptions): Promise<ExecResult>;

  abstract readFile(path: string): Promise<Uint8Array>;
  abstract writeFile(path: string, data: string | Uint8Array): Promise<void>;
  /** Every regular file in the workspace. */
  abstract listFiles(): Promise<WorkspaceFile[]>;

  /** Ends running commands and releases the environment (a workspace it created is deleted). */
  abstract close(): Promise<void>;

  /** Reads a workspace file as UTF-8 text. */
  async readText(path: string): Promise<string> {
    return new TextDecoder().decode(await this.readFile(path));
  }
}

/** Limits from defaults, partial overrides and validation (positive integers). */
export function resolveLimits(overrides: Partial<EnvironmentLimits> | undefined): EnvironmentLimits {
  const limits = { ...defaultLimits, ...overrides };
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isFinite(value) || value <= 0) {
      throw new ConfigError(`Environment limit ${key} must be a positive number, got ${String(value)}`);
    }
  }
  return limits;
}
