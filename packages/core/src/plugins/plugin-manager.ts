import { AdkError, AlreadyExistsError, describeError, isAdkError } from '../errors/errors.js';
import type { Content } from '../events/content.js';
import type { Event } from '../events/event.js';
import type { LlmResponse } from '../models/llm.js';
import type {
  AfterModelArgs,
  AfterNodeArgs,
  AfterToolArgs,
  AgentErrorArgs,
  AgentHookArgs,
  AgentHooks,
  BeforeModelArgs,
  BeforeNodeArgs,
  BeforeToolArgs,
  ModelErrorArgs,
  Plugin,
  RunErrorArgs,
  RunHookArgs,
  ToolErrorArgs,
} from './plugin.js';

/** A plugin hook threw. The runner turns it into an error event. */
export class PluginError extends AdkError {
  constructor(plugin: string, hook: string, cause: unknown) {
    super('PLUGIN', `Plugin "${plugin}" failed in ${hook}: ${describeError(cause)}`, {
      cause,
      details: { plugin, hook },
    });
  }
}

const NO_RESULT: Promise<undefined> = /* @__PURE__ */ Promise.resolve(undefined);

type HookName = keyof AgentHooks | 'onUserMessage' | 'beforeRun' | 'afterRun' | 'onEvent' | 'onAgentError';

/** Runs the plugins of a runner in order; the first hook to return a value wins. */
export class PluginManager {
  private readonly plugins: Plugin[] = [];
  private initialized: Promise<void> | undefined;

  constructor(plugins: Plugin[] = []) {
    for (const p of plugins) this.register(p);
  }

  register(plugin: Plugin): void {
    if (this.plugins.some((p) => p.name === plugin.name)) {
      throw new AlreadyExistsError(`A plugin named "${plugin.name}" is already registered`);
    }
    this.plugins.push(plugin);
    if (this.initialized) {
      this.initialized = this.initialized.then(async () => {
        try {
          await plugin.init?.();
        } catch (error) {
          throw new PluginError(plugin.name, 'init', error);
        }
      });
    }
  }

  get(name: string): Plugin | undefined {
    return this.plugins.find((p) => p.name === name);
  }

  list(): readonly Plugin[] {
    return this.plugins;
  }

  get isEmpty(): boolean {
    return this.plugins.length === 0;
  }

  /** Whether any plugin implements `hook`. */
  implements(hook: HookName): boolean {
    return this.plugins.some((p) => typeof (p as unknown as Record<string, unknown>)[hook] === 'function');
  }

  /** Calls every plugin's init once. */
  init(): Promise<void> {
    this.initialized ??= (async () => {
      for (const p of this.plugins) {
        try {
          await p.init?.();
        } catch (error) {
          throw new PluginError(p.name, 'init', error);
        }
      }
    })().catch((error: unknown) => {
      // A failed start is not remembered: the next run tries again.
      this.initialized = undefined;
      throw error;
    });
    return this.initialized;
  }

  async close(): Promise<void> {
    const errors: unknown[] = [];
    for (const p of this.plugins) {
      try {
        await p.close?.();
      } catch (error) {
        errors.push(new PluginError(p.name, 'close', error));
      }
    }
    this.initialized = undefined;
    if (errors.length > 0) throw errors[0];
  }

  /** First non-undefined result of `hook` across plugins, or undefined. */
  first<R>(hook: HookName, args: unknown): Promise<R | undefined> {
    // Called several times per step: no async frame when there is nothing to call.
    return this.plugins.length === 0 ? NO_RESULT : this.firstOf<R>(hook, args);
  }

  private async firstOf<R>(hook: HookName, args: unknown): Promise<R | undefined> {
    for (const p of this.plugins) {
      const fn = p[hook] as ((a: unknown) => unknown) | undefined;
      if (!fn) continue;
      let result: unknown;
      try {
        result = await fn.call(p, args);
      } catch (error) {
        if (isAdkError(error, 'PLUGIN')) throw error;
        throw new PluginError(p.name, hook, error);
      }
      if (result !== undefined && result !== null) return result as R;
    }
    return undefined;
  }

  onUserMessage(args: RunHookArgs & { message: Content }) {
    return this.first<Content>('onUserMessage', args);
  }
  async beforeRun(args: RunHookArgs): Promise<Content | undefined> {
    const result = await this.first<Content | { halt?: Content; continue?: true }>('beforeRun', args);
    if (!result) return undefined;
    if ('halt' in result && result.halt) return result.halt;
    if ('continue' in result) return undefined;
    return result as Content;
  }
  async afterRun(args: RunHookArgs): Promise<void> {
    for (const p of this.plugins) {
      try {
        await p.afterRun?.(args);
      } catch (error) {
        throw new PluginError(p.name, 'afterRun', error);
      }
    }
  }
  onEvent(args: RunHookArgs & { event: Event }) {
    return this.first<Event>('onEvent', args);
  }
  beforeAgent(args: AgentHookArgs) {
    return this.first<Content>('beforeAgent', args);
  }
  afterAgent(args: AgentHookArgs) {
    return this.first<Content>('afterAgent', args);
  }
  beforeModel(args: BeforeModelArgs) {
    return this.first<LlmResponse>('beforeModel', args);
  }
  afterModel(args: AfterModelArgs) {
    return this.first<LlmResponse>('afterModel', args);
  }
  onModelError(args: ModelErrorArgs) {
    return this.first<LlmResponse>('onModelError', args);
  }
  beforeTool(args: BeforeToolArgs) {
    return this.first<Record<string, unknown>>('beforeTool', args);
  }
  afterTool(args: AfterToolArgs) {
    return this.first<Record<string, unknown>>('afterTool', args);
  }
  onToolError(args: ToolErrorArgs) {
    return this.first<Record<string, unknown>>('onToolError', args);
  }
  /** A value from a plugin becomes the node's output; the node does not run. */
  beforeNode(args: BeforeNodeArgs) {
    return this.first<unknown>('beforeNode', args);
  }
  /** A value from a plugin replaces the node's output. */
  afterNode(args: AfterNodeArgs) {
    return this.first<unknown>('afterNode', args);
  }
  onAgentError(args: AgentErrorArgs) {
    return this.first<Content>('onAgentError', args);
  }
  /** Every plugin sees the failure; a hook that throws must not hide the error being reported. */
  async onRunError(args: RunErrorArgs): Promise<void> {
    for (const p of this.plugins) {
      try {
        await p.onRunError?.(args);
      } catch {
        // ignored: the run is already failing with the original error
      }
    }
  }
}
