import type { Runner } from '@adk/core';
import type { Context, Hono } from 'hono';
import { idParam, type RouteContext } from './context.js';

type A2aModule = typeof import('@adk/a2a');
type A2aServer = ReturnType<A2aModule['toA2a']>;
type TaskStore = import('@adk/a2a').TaskStore;
type TaskEventBus = import('@adk/a2a').TaskEventBus;

/**
 * One app's view of the shared task store: tasks are recorded under an owner scoped to the app, so
 * `/a2a/a` never reads or lists the tasks of `/a2a/b` (caller identities stay separate within it).
 */
export function appTaskStore(store: TaskStore, appName: string): TaskStore {
  const scope = (owner: string | undefined) => `app:${appName}${owner === undefined ? '' : `\u0000${owner}`}`;
  return {
    get: (taskId, owner) => store.get(taskId, scope(owner)),
    save: (task, owner) => store.save(task, scope(owner)),
    list: (query) => store.list({ ...query, owner: scope(query.owner) }),
    savePushConfig: (config) => store.savePushConfig(config),
    getPushConfig: (taskId, configId) => store.getPushConfig(taskId, configId),
    listPushConfigs: (taskId) => store.listPushConfigs(taskId),
    deletePushConfig: (taskId, configId) => store.deletePushConfig(taskId, configId),
  };
}

/** Per-app A2A servers, built on first request and closed with the server. */
export class A2aMounts {
  private readonly servers = new Map<string, { runner: Runner; server: Promise<A2aServer> }>();
  private readonly retired: Promise<A2aServer>[] = [];
  /** The in-memory task store shared by the apps when the server opened no database. */
  private shared: TaskStore | undefined;

  constructor(
    private readonly a2a: A2aModule,
    private readonly ctx: RouteContext,
  ) {}

  private taskStore(): TaskStore {
    const opened = this.ctx.stores.taskStore as TaskStore | undefined;
    if (opened) return opened;
    this.shared ??= new this.a2a.InMemoryTaskStore();
    return this.shared;
  }

  /** The app's A2A server, rebuilt when the app's runner changed (a reloaded app, see AppRegistry). */
  async server(appName: string): Promise<A2aServer> {
    const runner = await this.ctx.apps.runner(appName);
    const cached = this.servers.get(appName);
    if (cached?.runner === runner) return cached.server;
    // The replaced server is closed with the others at shutdown: its tasks may still be streaming.
    if (cached) this.retired.push(cached.server);
    const server = Promise.resolve().then(() =>
      this.a2a.toA2a(runner, {
        basePath: `/a2a/${encodeURIComponent(appName)}`,
        maxBodyBytes: this.ctx.bodyLimit,
        // Same session service as the HTTP API (the runner's), tasks in the same database.
        store: appTaskStore(this.taskStore(), appName),
        // Several instances on one Postgres: live task updates reach every instance's subscribers.
        ...(this.ctx.stores.taskEventBus ? { eventBus: this.ctx.stores.taskEventBus as TaskEventBus } : {}),
        onError: (error) => this.ctx.logger.error(`A2A ${appName}: ${(error as Error)?.message ?? error}`),
      }),
    );
    const entry = { runner, server };
    this.servers.set(appName, entry);
    server.catch(() => {
      if (this.servers.get(appName) === entry) this.servers.delete(appName);
    });
    return server;
  }

  async close(): Promise<void> {
    const settled = await Promise.allSettled([
      ...[...this.servers.values()].map((entry) => entry.server),
      ...this.retired,
    ]);
    await Promise.allSettled(settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.close()] : [])));
  }
}

/** Every app is an A2A agent at `/a2a/{app}` (card at `/a2a/{app}/.well-known/agent-card.json`). */
export function a2aRoutes(app: Hono, ctx: RouteContext, mounts: A2aMounts): void {
  const handle = async (c: Context) => {
    const name = idParam(c, 'app');
    await ctx.apps.assertApp(name);
    return (await mounts.server(name)).fetch(c.req.raw);
  };
  app.all('/a2a/:app', handle);
  app.all('/a2a/:app/*', handle);
}
