import { type BaseAgent, isAdkError, NotFoundError, type Runner } from '@adk/core';
import { AppLoadError } from './errors.js';

/** Apps found at run time, e.g. one module per folder (the CLI's loader). */
export interface AdkAppLoader {
  /** The names of the apps that can be loaded (what `list-apps` answers). */
  list(): Promise<string[]>;
  /**
   * Optional: whether `name` is an app, listed or not, asked on every request that names an app (keep
   * it cheap). Lets a loader serve apps that `list()` leaves out, such as the CLI's builder drafts,
   * and stop serving one it loaded before; without it, an app loaded once stays, else `list()` decides.
   */
  has?(name: string): boolean | Promise<boolean>;
  /** Loads one app's root agent. Failures are AdkErrors that name the file. */
  load(name: string): Promise<BaseAgent>;
  /** What the app is written in, for `list-apps?detailed=true` (`yaml` for Agent Config apps; default `typescript`). */
  language?(name: string): string | Promise<string>;
  /**
   * Optional, for loaders that reload apps whose files changed (`adk web --reload`): a number that
   * changes each time `load(name)` would answer a new agent. The registry builds a new runner for
   * the next run when it differs from the one its runner was built with; runs in progress keep the
   * runner (and the code) they started with.
   */
  revision?(name: string): number;
}

export type AdkApps = Record<string, BaseAgent> | AdkAppLoader;

function isLoader(apps: AdkApps): apps is AdkAppLoader {
  return (
    typeof (apps as AdkAppLoader).list === 'function' && typeof (apps as AdkAppLoader).load === 'function'
  );
}

/** Resolves app names to agents and to one Runner per app, built on first use and kept. */
export class AppRegistry {
  /** `revision` is the loader's revision of the agent the runner was built on (undefined while it loads). */
  private readonly runners = new Map<string, { revision: number | undefined; runner: Promise<Runner> }>();
  /** Runners replaced by a reload: closed at shutdown, once their runs are over. */
  private readonly retired: Promise<Runner>[] = [];
  private readonly fixed: Map<string, BaseAgent> | undefined;

  constructor(
    private readonly apps: AdkApps,
    private readonly makeRunner: (name: string, agent: BaseAgent) => Runner | Promise<Runner>,
  ) {
    this.fixed = isLoader(apps) ? undefined : new Map(Object.entries(apps));
  }

  async names(): Promise<string[]> {
    if (this.fixed) return [...this.fixed.keys()].sort();
    return [...(await (this.apps as AdkAppLoader).list())].sort();
  }

  async has(name: string): Promise<boolean> {
    if (this.fixed) return this.fixed.has(name);
    const loader = this.apps as AdkAppLoader;
    if (loader.has) return await loader.has(name);
    if (this.runners.has(name)) return true;
    return (await this.names()).includes(name);
  }

  /** Throws NotFoundError for a name that is not an app. */
  async assertApp(name: string): Promise<void> {
    if (!(await this.has(name))) throw new NotFoundError(`App not found: ${name}`);
  }

  /** `yaml` for an app built from a root_agent.yaml, otherwise `typescript`. */
  async language(name: string): Promise<string> {
    if (this.fixed) return 'typescript';
    const loader = this.apps as AdkAppLoader;
    return (await loader.language?.(name)) ?? 'typescript';
  }

  /** The app's root agent; NotFoundError for a name that is no longer an app (a dropped draft). */
  async agent(name: string): Promise<BaseAgent> {
    await this.assertApp(name);
    return (await this.runner(name)).agent;
  }

  private revisionOf(name: string): number {
    return this.fixed ? 0 : ((this.apps as AdkAppLoader).revision?.(name) ?? 0);
  }

  /**
   * The app's runner; a failed load is not cached, so fixing the file and retrying works. A loader
   * whose `revision(name)` changed gets a new runner (see {@link AdkAppLoader.revision}).
   */
  runner(name: string): Promise<Runner> {
    const revision = this.revisionOf(name);
    const cached = this.runners.get(name);
    if (cached && (cached.revision === undefined || cached.revision === revision)) return cached.runner;
    if (cached) {
      this.retired.push(cached.runner);
      cached.runner.catch(() => undefined);
    }
    // The revision is read right after the load answers (the build calls back after an await,
    // once `entry` exists), so it is the one of the agent that load answered.
    const pending = this.build(name, (loaded) => {
      entry.revision = loaded;
    });
    const entry: { revision: number | undefined; runner: Promise<Runner> } = {
      revision: undefined,
      runner: pending,
    };
    this.runners.set(name, entry);
    pending.catch(() => {
      if (this.runners.get(name) === entry) this.runners.delete(name);
    });
    return pending;
  }

  private async build(name: string, loaded: (revision: number) => void): Promise<Runner> {
    await this.assertApp(name);
    let agent: BaseAgent;
    if (this.fixed) agent = this.fixed.get(name) as BaseAgent;
    else {
      try {
        agent = await (this.apps as AdkAppLoader).load(name);
      } catch (error) {
        if (isAdkError(error)) throw error;
        throw new AppLoadError(`App ${name} failed to load: ${(error as Error)?.message ?? String(error)}`, {
          cause: error,
        });
      }
    }
    loaded(this.revisionOf(name));
    return this.makeRunner(name, agent);
  }

  /** Runners built so far (for shutdown). */
  async loaded(): Promise<Runner[]> {
    const settled = await Promise.allSettled([
      ...[...this.runners.values()].map((entry) => entry.runner),
      ...this.retired,
    ]);
    return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  }
}
