import { type BaseAgent, isAdkError, NotFoundError, type Runner } from '@adk/core';
import { AppLoadError } from './errors.js';

/** Apps found at run time, e.g. one module per folder (the CLI's loader). */
export interface AdkAppLoader {
  /** The names of the apps that can be loaded. */
  list(): Promise<string[]>;
  /** Loads one app's root agent. Failures are AdkErrors that name the file. */
  load(name: string): Promise<BaseAgent>;
  /** What the app is written in, for `list-apps?detailed=true` (`yaml` for Agent Config apps; default `typescript`). */
  language?(name: string): string | Promise<string>;
}

export type AdkApps = Record<string, BaseAgent> | AdkAppLoader;

function isLoader(apps: AdkApps): apps is AdkAppLoader {
  return (
    typeof (apps as AdkAppLoader).list === 'function' && typeof (apps as AdkAppLoader).load === 'function'
  );
}

/** Resolves app names to agents and to one Runner per app, built on first use and kept. */
export class AppRegistry {
  private readonly runners = new Map<string, Promise<Runner>>();
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

  async agent(name: string): Promise<BaseAgent> {
    return (await this.runner(name)).agent;
  }

  /** The app's runner; a failed load is not cached, so fixing the file and retrying works. */
  runner(name: string): Promise<Runner> {
    let pending = this.runners.get(name);
    if (!pending) {
      pending = this.build(name);
      this.runners.set(name, pending);
      pending.catch(() => {
        if (this.runners.get(name) === pending) this.runners.delete(name);
      });
    }
    return pending;
  }

  private async build(name: string): Promise<Runner> {
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
    return this.makeRunner(name, agent);
  }

  /** Runners built so far (for shutdown). */
  async loaded(): Promise<Runner[]> {
    const settled = await Promise.allSettled(this.runners.values());
    return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  }
}
