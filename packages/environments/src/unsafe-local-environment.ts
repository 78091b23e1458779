import type { ExecOptions, ExecResult } from './base-environment.js';
import { findProgram } from './find-program.js';
import { HostEnvironment } from './host-environment.js';
import { runProcess } from './run-process.js';

/**
 * Runs commands as plain child processes of this one, in the workspace directory, with this
 * user's rights: NO isolation. Commands can read and write anything the server can, and reach
 * the network. For trusted code in setups that are already isolated (a throwaway container, a
 * CI job). The timeout and output cap apply; CPU, memory and file size limits apply through
 * util-linux `prlimit` when it is installed. The process limit does not (an rlimit would count
 * every process of this user).
 */
export class UnsafeLocalEnvironment extends HostEnvironment {
  readonly kind = 'unsafe-local';
  private prlimit: string | undefined;

  protected async prepare(): Promise<{ owner?: { uid: number; gid: number } }> {
    this.prlimit = await findProgram('prlimit');
    return {};
  }

  protected async run(
    argv: readonly string[],
    options: ExecOptions & { signal: AbortSignal },
  ): Promise<ExecResult> {
    const limits = this.limits;
    const cwd = options.cwd === undefined ? this.workspaceDir : await this.workspace?.resolve(options.cwd);
    const wrapped = this.prlimit
      ? [
          this.prlimit,
          `--as=${limits.memoryBytes}`,
          `--cpu=${limits.cpuSeconds}`,
          `--fsize=${limits.fileSizeBytes}`,
          '--',
          ...argv,
        ]
      : argv;
    return runProcess({
      argv: wrapped,
      ...(cwd === undefined ? {} : { cwd }),
      env: { ...this.baseEnv(this.workspaceDir), PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
      timeoutMs: this.timeoutFor(options),
      outputBytes: limits.outputBytes,
      signal: options.signal,
      ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
      ...(options.onOutput ? { onOutput: options.onOutput } : {}),
    });
  }
}
