import {
  BaseEnvironment,
  type EnvironmentLimits,
  type ExecOptions,
  type ExecResult,
  resolveLimits,
  type WorkspaceFile,
} from './base-environment.js';
import { EnvironmentClosedError } from './errors.js';
import { HostWorkspace } from './host-workspace.js';

export interface HostEnvironmentOptions {
  /** The workspace directory on the host (created if missing; kept on close). Default: a fresh temporary directory, deleted on close. */
  workspaceDir?: string;
  limits?: Partial<EnvironmentLimits>;
  /** Variables every command gets (on top of a clean PATH, HOME and LANG). */
  env?: Record<string, string>;
}

/** The part the host-directory environments share: the workspace, file access, start/close state. */
export abstract class HostEnvironment extends BaseEnvironment {
  readonly limits: Readonly<EnvironmentLimits>;
  protected workspace: HostWorkspace | undefined;
  private starting: Promise<void> | undefined;
  private closed = false;
  private readonly running = new Set<AbortController>();

  constructor(protected readonly options: HostEnvironmentOptions = {}) {
    super();
    this.limits = Object.freeze(resolveLimits(options.limits));
  }

  /** The workspace directory on the host (after `start()`). */
  get workspaceDir(): string {
    return this.requireWorkspace().dir;
  }

  /** Checks the environment works here; called once by `start()`. */
  protected abstract prepare(): Promise<{ owner?: { uid: number; gid: number } }>;
  /** Runs one command once started. */
  protected abstract run(
    argv: readonly string[],
    options: ExecOptions & { signal: AbortSignal },
  ): Promise<ExecResult>;
  /** Called after `prepare` with the workspace, to probe it (default: nothing). */
  protected async probe(): Promise<void> {}

  start(): Promise<void> {
    if (this.closed)
      return Promise.reject(new EnvironmentClosedError(`The ${this.kind} environment is closed`));
    this.starting ??= (async () => {
      const { owner } = await this.prepare();
      this.workspace = await HostWorkspace.open(this.options.workspaceDir, owner);
      try {
        await this.probe();
      } catch (error) {
        await this.workspace.dispose();
        this.workspace = undefined;
        throw error;
      }
    })();
    // A failed start may be retried (the machine may have changed).
    this.starting.catch(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  async exec(argv: readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    await this.start();
    this.requireWorkspace();
    const controller = new AbortController();
    const forward = () => controller.abort();
    if (options.signal?.aborted) controller.abort();
    else options.signal?.addEventListener('abort', forward, { once: true });
    this.running.add(controller);
    try {
      return await this.run(argv, { ...options, signal: controller.signal });
    } finally {
      this.running.delete(controller);
      options.signal?.removeEventListener('abort', forward);
    }
  }

  async readFile(path: string): Promise<Uint8Array> {
    await this.start();
    return this.requireWorkspace().read(path);
  }

  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    await this.start();
    return this.requireWorkspace().write(path, data);
  }

  async listFiles(): Promise<WorkspaceFile[]> {
    await this.start();
    return this.requireWorkspace().list();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const controller of this.running) controller.abort();
    await this.starting?.catch(() => {});
    await this.workspace?.dispose();
    this.workspace = undefined;
  }

  protected timeoutFor(options: ExecOptions): number {
    return Math.min(options.timeoutMs ?? this.limits.timeoutMs, this.limits.timeoutMs);
  }

  protected baseEnv(home: string): Record<string, string> {
    return {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: home,
      LANG: 'C.UTF-8',
      ...this.options.env,
    };
  }

  private requireWorkspace(): HostWorkspace {
    if (this.closed) throw new EnvironmentClosedError(`The ${this.kind} environment is closed`);
    if (!this.workspace) throw new EnvironmentClosedError(`The ${this.kind} environment is not started`);
    return this.workspace;
  }
}
