import { lstat, readlink } from 'node:fs/promises';
import { constants } from 'node:os';
import { posix } from 'node:path';
import type { ExecOptions, ExecResult } from './base-environment.js';
import { EnvironmentUnavailableError, WorkspacePathError } from './errors.js';
import { findProgram } from './find-program.js';
import { HostEnvironment, type HostEnvironmentOptions } from './host-environment.js';
import { runProcess } from './run-process.js';

export interface LocalSandboxOptions extends HostEnvironmentOptions {
  /** Let commands reach the network (default false: a private network namespace with loopback only). */
  network?: boolean;
  /** More host paths mounted read-only at the same place (an interpreter outside /usr, a data set). */
  readOnlyPaths?: readonly string[];
  /** The bwrap program (default: `bwrap` on PATH). */
  bwrapPath?: string;
  /**
   * The host user the sandbox runs as when this process is root (default nobody, 65534). Root's
   * own processes are exempt from the process limit, so the sandbox never runs as root.
   */
  sandboxUser?: { uid: number; gid: number };
}

/**
 * bwrap reports a command ended by a signal as exit status 128 + the signal's number (as a
 * shell does); the result names the signal instead.
 */
function signalFromStatus(result: ExecResult): ExecResult {
  const code = result.exitCode;
  if (result.signal !== null || code === null || code <= 128) return result;
  const name = Object.entries(constants.signals).find(([, number]) => number === code - 128)?.[0];
  return name ? { ...result, exitCode: null, signal: name } : result;
}

/** Where the sandbox mounts the workspace. */
export const SANDBOX_WORKSPACE = '/workspace';

/** Directories of a merged-/usr system that are links into /usr, or directories of their own. */
const SYSTEM_DIRS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/** What of /etc programs need to start (the dynamic linker's cache, alternatives, time zone, CA certificates). */
const ETC_PATHS = [
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
  '/etc/localtime',
  '/etc/ssl/certs',
];
/** With network: name resolution too. */
const ETC_NETWORK_PATHS = ['/etc/resolv.conf', '/etc/hosts', '/etc/nsswitch.conf'];

/**
 * Runs commands in a bubblewrap sandbox on Linux: new user, PID, network, IPC and UTS namespaces;
 * a read-only view of /usr (and the system links into it); a private /tmp and /dev; the workspace
 * mounted read-write at /workspace and nothing else of the host. Limits are rlimits set inside the
 * sandbox's user namespace (by util-linux `prlimit`), so the process count is per sandbox; the
 * wall-clock timeout and the output cap are enforced from outside, and killing bwrap kills
 * everything in the sandbox's PID namespace.
 *
 * `start()` throws `EnvironmentUnavailableError` when bwrap or prlimit is missing, the platform is
 * not Linux, or the kernel refuses the namespaces (a probe command is run).
 */
export class LocalSandboxEnvironment extends HostEnvironment {
  readonly kind = 'bubblewrap';
  private bwrap = '';
  private prlimit = '';
  private fixedArgs: string[] = [];
  private runAs: { uid: number; gid: number } | undefined;

  constructor(protected override readonly options: LocalSandboxOptions = {}) {
    super(options);
  }

  protected async prepare(): Promise<{ owner?: { uid: number; gid: number } }> {
    if (process.platform !== 'linux') {
      throw new EnvironmentUnavailableError(
        `LocalSandboxEnvironment needs Linux with bubblewrap; this is ${process.platform}. Use a container environment instead.`,
      );
    }
    const bwrap = await findProgram(this.options.bwrapPath ?? 'bwrap');
    if (!bwrap) {
      throw new EnvironmentUnavailableError(
        'bubblewrap (bwrap) was not found on PATH: install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)',
      );
    }
    const prlimit = await findProgram('prlimit');
    if (!prlimit?.startsWith('/usr/')) {
      throw new EnvironmentUnavailableError(
        'prlimit (util-linux) was not found under /usr: the sandbox sets its limits with it',
      );
    }
    this.bwrap = bwrap;
    this.prlimit = prlimit;
    this.runAs =
      process.getuid?.() === 0 ? (this.options.sandboxUser ?? { uid: 65534, gid: 65534 }) : undefined;
    this.fixedArgs = await this.systemMounts();
    return this.runAs ? { owner: this.runAs } : {};
  }

  protected override async probe(): Promise<void> {
    const result = await this.run(['true'], { signal: new AbortController().signal, timeoutMs: 10_000 });
    if (result.exitCode !== 0) {
      const reason = result.killed ? `the probe was killed (${result.killed})` : result.stderr.trim();
      throw new EnvironmentUnavailableError(
        `bubblewrap cannot create its sandbox here: ${reason || `exit ${String(result.exitCode)}`}. It needs unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0; in a container: seccomp and AppArmor profiles that allow unshare).`,
        { details: { stderr: result.stderr, exitCode: result.exitCode } },
      );
    }
  }

  protected async run(
    argv: readonly string[],
    options: ExecOptions & { signal: AbortSignal },
  ): Promise<ExecResult> {
    const cwd = options.cwd === undefined ? SANDBOX_WORKSPACE : await this.sandboxCwd(options.cwd);
    const limits = this.limits;
    const args = [
      ...this.fixedArgs,
      '--bind',
      this.workspaceDir,
      SANDBOX_WORKSPACE,
      '--chdir',
      cwd,
      '--',
      this.prlimit,
      `--nproc=${limits.processes}`,
      `--as=${limits.memoryBytes}`,
      `--cpu=${limits.cpuSeconds}`,
      `--fsize=${limits.fileSizeBytes}`,
      '--',
      ...argv,
    ];
    const result = await runProcess({
      argv: [this.bwrap, ...args],
      env: { ...this.baseEnv(SANDBOX_WORKSPACE), TMPDIR: '/tmp', ...options.env },
      timeoutMs: this.timeoutFor(options),
      outputBytes: limits.outputBytes,
      signal: options.signal,
      ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
      ...(options.onOutput ? { onOutput: options.onOutput } : {}),
      ...(this.runAs ?? {}),
    });
    return signalFromStatus(result);
  }

  private async sandboxCwd(cwd: string): Promise<string> {
    // Checked against the host workspace, then given as the sandbox path.
    const host = await this.workspace?.resolve(cwd);
    if (!host) throw new WorkspacePathError(`Not a workspace path: ${cwd}`);
    const rel = host.slice(this.workspaceDir.length).split('\\').join('/');
    return posix.join(SANDBOX_WORKSPACE, rel);
  }

  /** The namespace and mount arguments that do not change between commands. */
  private async systemMounts(): Promise<string[]> {
    const args = [
      '--unshare-all',
      ...(this.options.network ? ['--share-net'] : []),
      '--die-with-parent',
      '--new-session',
      '--hostname',
      'sandbox',
      '--ro-bind',
      '/usr',
      '/usr',
    ];
    for (const dir of SYSTEM_DIRS) {
      const info = await lstat(dir).catch(() => undefined);
      if (!info) continue;
      if (info.isSymbolicLink()) args.push('--symlink', await readlink(dir), dir);
      else if (info.isDirectory()) args.push('--ro-bind', dir, dir);
    }
    for (const path of [...ETC_PATHS, ...(this.options.network ? ETC_NETWORK_PATHS : [])]) {
      args.push('--ro-bind-try', path, path);
    }
    for (const path of this.options.readOnlyPaths ?? []) args.push('--ro-bind', path, path);
    args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
    return args;
  }
}
