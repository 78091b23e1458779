import { randomUUID } from 'node:crypto';
import { posix } from 'node:path';
import type { ExecOptions, ExecResult } from './base-environment.js';
import { EnvironmentUnavailableError, WorkspacePathError } from './errors.js';
import { findProgram } from './find-program.js';
import { HostEnvironment, type HostEnvironmentOptions } from './host-environment.js';
import { SANDBOX_WORKSPACE } from './local-sandbox-environment.js';
import { runProcess } from './run-process.js';

export interface ContainerEnvironmentOptions extends HostEnvironmentOptions {
  /** The image commands run in (it must already be present or pullable). */
  image: string;
  /** `podman` or `docker` (default: the first of the two found on PATH). */
  runtime?: 'podman' | 'docker';
  /** Let commands reach the network (default false: `--network=none`). */
  network?: boolean;
  /** The user inside the container (default 65534:65534, nobody). */
  user?: string;
  /** More `run` arguments, placed before the image. */
  runArgs?: readonly string[];
}

/**
 * Runs each command in a fresh container of `image` (Docker or Podman): no network by default, a
 * read-only root file system with a private /tmp, the workspace bind-mounted at /workspace, the
 * process and memory limits as the runtime's pids and memory limits, CPU seconds and file size as
 * ulimits. A command killed for its timeout or output also has its container removed.
 *
 * `start()` runs `true` in the image and throws `EnvironmentUnavailableError` with the runtime's
 * message when the runtime is missing or cannot run containers here.
 */
export class ContainerEnvironment extends HostEnvironment {
  readonly kind: string;
  private runtimePath = '';

  constructor(protected override readonly options: ContainerEnvironmentOptions) {
    super(options);
    this.kind = options.runtime ?? 'container';
  }

  protected async prepare(): Promise<{ owner?: { uid: number; gid: number } }> {
    const names = this.options.runtime ? [this.options.runtime] : ['podman', 'docker'];
    for (const name of names) {
      const found = await findProgram(name);
      if (found) {
        this.runtimePath = found;
        break;
      }
    }
    if (!this.runtimePath) {
      throw new EnvironmentUnavailableError(
        `No container runtime found on PATH (looked for ${names.join(', ')})`,
      );
    }
    // The container's user must be able to write the workspace.
    const [uid, gid] = (this.options.user ?? '65534:65534').split(':').map(Number);
    return process.getuid?.() === 0 && Number.isInteger(uid) && Number.isInteger(gid)
      ? { owner: { uid: uid as number, gid: gid as number } }
      : {};
  }

  protected override async probe(): Promise<void> {
    const result = await this.run(['true'], { signal: new AbortController().signal, timeoutMs: 60_000 });
    if (result.exitCode !== 0) {
      throw new EnvironmentUnavailableError(
        `${this.runtimePath} cannot run ${this.options.image} here: ${result.stderr.trim() || result.killed || `exit ${String(result.exitCode)}`}`,
        { details: { stderr: result.stderr, exitCode: result.exitCode } },
      );
    }
  }

  /** The `run` arguments of one command (exposed for inspection and tests). */
  runArguments(
    name: string,
    argv: readonly string[],
    cwd: string,
    env: Record<string, string>,
    hostWorkspace: string = this.workspaceDir,
  ): string[] {
    const limits = this.limits;
    return [
      'run',
      '--rm',
      '-i',
      '--name',
      name,
      `--network=${this.options.network ? 'bridge' : 'none'}`,
      '--read-only',
      '--tmpfs',
      '/tmp',
      `--pids-limit=${limits.processes}`,
      `--memory=${limits.memoryBytes}`,
      '--ulimit',
      `cpu=${limits.cpuSeconds}:${limits.cpuSeconds}`,
      '--ulimit',
      `fsize=${limits.fileSizeBytes}:${limits.fileSizeBytes}`,
      '--security-opt',
      'no-new-privileges',
      '--cap-drop=ALL',
      '--user',
      this.options.user ?? '65534:65534',
      '-v',
      `${hostWorkspace}:${SANDBOX_WORKSPACE}`,
      '-w',
      cwd,
      ...Object.entries(env).flatMap(([key, value]) => ['--env', `${key}=${value}`]),
      ...(this.options.runArgs ?? []),
      this.options.image,
      ...argv,
    ];
  }

  protected async run(
    argv: readonly string[],
    options: ExecOptions & { signal: AbortSignal },
  ): Promise<ExecResult> {
    let cwd = SANDBOX_WORKSPACE;
    if (options.cwd !== undefined) {
      const host = await this.workspace?.resolve(options.cwd);
      if (!host) throw new WorkspacePathError(`Not a workspace path: ${options.cwd}`);
      cwd = posix.join(SANDBOX_WORKSPACE, host.slice(this.workspaceDir.length).split('\\').join('/'));
    }
    const name = `adk-env-${randomUUID()}`;
    const env = { ...this.baseEnv(SANDBOX_WORKSPACE), TMPDIR: '/tmp', ...options.env };
    const result = await runProcess({
      argv: [this.runtimePath, ...this.runArguments(name, argv, cwd, env)],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/' },
      timeoutMs: this.timeoutFor(options),
      outputBytes: this.limits.outputBytes,
      signal: options.signal,
      ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
      ...(options.onOutput ? { onOutput: options.onOutput } : {}),
    });
    if (result.killed) {
      // Killing the client does not stop the container.
      await runProcess({
        argv: [this.runtimePath, 'rm', '-f', name],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/' },
        timeoutMs: 30_000,
        outputBytes: 64 * 1024,
      });
    }
    return result;
  }
}
