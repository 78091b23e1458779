import {
  AlreadyExistsError,
  ConfigError,
  type MaybePromise,
  NotFoundError,
  type Plugin,
  PluginManager,
} from '@adk/core';

/** Every hook a plugin may have besides `init` and `close`. */
export const PLUGIN_HOOKS = [
  'onUserMessage',
  'beforeRun',
  'afterRun',
  'onEvent',
  'beforeAgent',
  'afterAgent',
  'beforeModel',
  'afterModel',
  'onModelError',
  'beforeTool',
  'afterTool',
  'onToolError',
] as const;
export type PluginHookName = (typeof PLUGIN_HOOKS)[number];

type HookFn<H extends PluginHookName> = NonNullable<Plugin[H]>;
/** The argument object core passes to hook `H`. */
export type PluginHookArgs<H extends PluginHookName> = Parameters<HookFn<H>>[0];
/** What hook `H` may return. */
export type PluginHookResult<H extends PluginHookName> = ReturnType<HookFn<H>>;

/** The hooks of a stateful plugin: each receives the state built by `init` first. */
export type StatefulHooks<S> = {
  [H in PluginHookName]?: (state: S, args: PluginHookArgs<H>) => PluginHookResult<H>;
};

const DEFINITION = Symbol.for('@adk/plugins.definition');

/** What you pass to {@link definePlugin}. */
export interface PluginSpec<C, S> extends StatefulHooks<S> {
  readonly name: string;
  /** Turns the configuration into the plugin's state; called once, before the first run. */
  init(config: C): MaybePromise<S>;
  /** Releases the state (connections, timers, files) on shutdown. */
  close?(state: S): MaybePromise<void>;
}

/** A stateful plugin definition ("ADK Elixir" style): instantiate it with a configuration. */
export interface PluginDefinition<C, S> extends PluginSpec<C, S> {
  readonly [DEFINITION]: true;
  /** A core Plugin running this definition with `config` (optionally under another name). */
  create(config: C, options?: { name?: string }): StatefulPlugin<S>;
}

/** A Plugin created from a definition; its state exists between `init` and `close`. */
export interface StatefulPlugin<S> extends Plugin {
  /** The state built by `init`; throws before `init` and after `close`. */
  readonly state: S;
  readonly initialized: boolean;
}

/**
 * Defines a stateful plugin: `init(config)` builds its state, every hook receives that state, and
 * `beforeRun` may return `{ continue: true }` (or nothing) to go on or `{ halt: content }` to end
 * the run with that reply.
 *
 * ```ts
 * const quota = definePlugin({
 *   name: 'quota',
 *   init: (config: { perUser: number }) => ({ limit: config.perUser, used: new Map<string, number>() }),
 *   beforeRun: (state, { context }) => {
 *     const used = (state.used.get(context.userId) ?? 0) + 1;
 *     state.used.set(context.userId, used);
 *     return used > state.limit ? { halt: { role: 'model', parts: [{ text: 'Quota exceeded.' }] } } : { continue: true };
 *   },
 * });
 * globalPlugins.register(quota, { perUser: 100 });
 * ```
 */
export function definePlugin<C, S>(spec: PluginSpec<C, S>): PluginDefinition<C, S> {
  const definition: PluginDefinition<C, S> = {
    ...spec,
    [DEFINITION]: true,
    create: (config, options) => instantiate(definition, config, options?.name ?? spec.name),
  };
  return definition;
}

export function isPluginDefinition(value: unknown): value is PluginDefinition<unknown, unknown> {
  return (
    typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[DEFINITION] === true
  );
}

function instantiate<C, S>(spec: PluginSpec<C, S>, config: C, name: string): StatefulPlugin<S> {
  let state: S | undefined;
  let ready = false;
  let starting: Promise<void> | undefined;
  const plugin: Record<string, unknown> = {
    name,
    get state(): S {
      if (!ready)
        throw new ConfigError(`Plugin "${name}" is not initialized (init has not run, or it was closed)`);
      return state as S;
    },
    get initialized() {
      return ready;
    },
    init(): Promise<void> {
      // Idempotent: a plugin shared by several managers builds its state once.
      if (!starting) {
        const attempt = (async () => {
          state = await spec.init(config);
          ready = true;
        })();
        starting = attempt;
        attempt.catch(() => {
          if (starting === attempt) starting = undefined;
        });
      }
      return starting;
    },
    async close(): Promise<void> {
      if (starting) await starting.catch(() => undefined);
      if (!ready) return;
      const last = state as S;
      ready = false;
      state = undefined;
      starting = undefined;
      await spec.close?.(last);
    },
  };
  for (const hook of PLUGIN_HOOKS) {
    const fn = spec[hook] as ((state: S, args: unknown) => unknown) | undefined;
    if (!fn) continue;
    plugin[hook] = (args: unknown) => fn.call(spec, (plugin as unknown as StatefulPlugin<S>).state, args);
  }
  return plugin as unknown as StatefulPlugin<S>;
}

/**
 * Plugins for every runner of the process (or of a part of it), plus a way to combine them with a
 * runner's own. Global plugins come first, are initialized once however many runners use them, and
 * are closed by {@link PluginRegistry.closeAll} (a runner's `close` leaves them open). Names are
 * unique across the global and the per-runner plugins.
 */
export class PluginRegistry {
  private readonly plugins = new Map<string, Plugin>();
  private readonly views = new Map<string, Plugin>();
  private readonly started = new Map<string, Promise<void>>();

  /** Registers a plugin object (stateless hooks, or a class with its own state). */
  register(plugin: Plugin): Plugin;
  /** Registers a stateful definition with its configuration; `init` turns the configuration into state. */
  register<C, S>(definition: PluginDefinition<C, S>, config: C): StatefulPlugin<S>;
  register(pluginOrDefinition: Plugin | PluginDefinition<unknown, unknown>, config?: unknown): Plugin {
    const plugin = isPluginDefinition(pluginOrDefinition)
      ? pluginOrDefinition.create(config)
      : pluginOrDefinition;
    if (!plugin.name) throw new ConfigError('A plugin needs a name');
    if (this.plugins.has(plugin.name)) {
      throw new AlreadyExistsError(`A global plugin named "${plugin.name}" is already registered`, {
        details: { plugin: plugin.name },
      });
    }
    this.plugins.set(plugin.name, plugin);
    return plugin;
  }

  /** Removes a plugin (closing it if it was started). Runners created before keep their copy. */
  async unregister(name: string): Promise<void> {
    const plugin = this.plugins.get(name);
    if (!plugin) throw new NotFoundError(`No global plugin named "${name}" is registered`);
    this.plugins.delete(name);
    this.views.delete(name);
    const started = this.started.get(name);
    this.started.delete(name);
    if (started) {
      await started.catch(() => undefined);
      await plugin.close?.();
    }
  }

  has(name: string): boolean {
    return this.plugins.has(name);
  }

  get(name: string): Plugin | undefined {
    return this.plugins.get(name);
  }

  /** The registered plugins, in registration order. */
  list(): Plugin[] {
    return [...this.plugins.values()];
  }

  /**
   * The plugins for one runner: the global ones first (shared, closed only by `closeAll`), then
   * `runnerPlugins`. A runner plugin with the name of a global one is rejected.
   */
  pluginsFor(runnerPlugins: readonly Plugin[] = []): Plugin[] {
    const out: Plugin[] = [];
    for (const plugin of this.plugins.values()) out.push(this.view(plugin));
    const seen = new Set(this.plugins.keys());
    for (const plugin of runnerPlugins) {
      if (seen.has(plugin.name)) {
        throw new AlreadyExistsError(
          this.plugins.has(plugin.name)
            ? `The runner plugin "${plugin.name}" has the name of a global plugin`
            : `Two runner plugins are named "${plugin.name}"`,
          { details: { plugin: plugin.name } },
        );
      }
      seen.add(plugin.name);
      out.push(plugin);
    }
    return out;
  }

  /** A core PluginManager with the global plugins and then `runnerPlugins`; pass it to a Runner. */
  createPluginManager(runnerPlugins: readonly Plugin[] = []): PluginManager {
    return new PluginManager(this.pluginsFor(runnerPlugins));
  }

  /** Starts every global plugin now (otherwise the first run of a runner does). */
  async initAll(): Promise<void> {
    for (const plugin of this.plugins.values()) await this.start(plugin);
  }

  /** Closes every global plugin that was started (call it on shutdown). They may start again later. */
  async closeAll(): Promise<void> {
    const errors: unknown[] = [];
    for (const plugin of this.plugins.values()) {
      const started = this.started.get(plugin.name);
      if (!started) continue;
      this.started.delete(plugin.name);
      try {
        await started.catch(() => undefined);
        await plugin.close?.();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw errors[0];
  }

  /** Closes and removes every global plugin. */
  async clear(): Promise<void> {
    try {
      await this.closeAll();
    } finally {
      this.plugins.clear();
      this.views.clear();
    }
  }

  private start(plugin: Plugin): Promise<void> {
    let started = this.started.get(plugin.name);
    if (!started) {
      started = Promise.resolve()
        .then(() => plugin.init?.())
        .catch((error: unknown) => {
          this.started.delete(plugin.name);
          throw error;
        });
      this.started.set(plugin.name, started);
    }
    return started;
  }

  /** What a runner sees of a global plugin: its hooks, a shared init and no close. */
  private view(plugin: Plugin): Plugin {
    let view = this.views.get(plugin.name);
    if (view) return view;
    const record: Record<string, unknown> = { name: plugin.name, init: () => this.start(plugin) };
    for (const hook of PLUGIN_HOOKS) {
      const fn = plugin[hook] as ((args: unknown) => unknown) | undefined;
      if (typeof fn === 'function') record[hook] = (args: unknown) => fn.call(plugin, args);
    }
    view = record as unknown as Plugin;
    this.views.set(plugin.name, view);
    return view;
  }
}

/** The process-wide registry. */
export const globalPlugins = new PluginRegistry();
