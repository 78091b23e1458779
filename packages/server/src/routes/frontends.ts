import type { Runner } from '@adk/core';
import type { Context, Hono } from 'hono';
import { idParam, type RouteContext } from './context.js';

type AiSdkModule = typeof import('@adk/ai-sdk');
type AgUiModule = typeof import('@adk/ag-ui');
type ChatHandler = ReturnType<AiSdkModule['createChatHandler']>;
type AgUiHandler = ReturnType<AgUiModule['createAgUiHandler']>;

/** The front-end protocol modules found installed (both are optional peers). */
export interface FrontendModules {
  aiSdk: AiSdkModule | undefined;
  agUi: AgUiModule | undefined;
}

export async function loadFrontendModules(): Promise<FrontendModules> {
  const load = async <T>(importIt: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await importIt();
    } catch {
      return undefined;
    }
  };
  return { aiSdk: await load(() => import('@adk/ai-sdk')), agUi: await load(() => import('@adk/ag-ui')) };
}

/** What `GET /list-apps?detailed=true` and app-info say an app is served over, by protocol. */
export function appProtocols(name: string, modules: FrontendModules, a2a: boolean): Record<string, string> {
  const app = encodeURIComponent(name);
  return {
    adk: '/run_sse',
    ...(a2a ? { a2a: `/a2a/${app}` } : {}),
    ...(modules.aiSdk ? { 'ai-sdk': `/apps/${app}/chat` } : {}),
    ...(modules.agUi ? { 'ag-ui': `/apps/${app}/ag-ui` } : {}),
  };
}

/**
 * Runs `handle` as a tracked run: the handler is given the shutdown signal and calls `onEnd` when its
 * response is over (read to the end, cancelled, or one without a stream), so a shutdown lets chat
 * runs finish like `/run_sse` runs. Neither the request nor the response is copied.
 */
async function tracked(
  ctx: RouteContext,
  handle: (options: { signal: AbortSignal; onEnd: () => void }) => Promise<Response>,
): Promise<Response> {
  const run = ctx.runs.start();
  try {
    return await handle({ signal: run.signal, onEnd: run.end });
  } catch (error) {
    run.end();
    throw error;
  }
}

/**
 * The front-end protocols of every app: the AI SDK's chat (`POST /apps/{app}/chat`, resume at
 * `GET /apps/{app}/chat/{id}/stream`, the session as UI messages at `…/{id}/messages`) and AG-UI
 * (`POST /apps/{app}/ag-ui`). One handler per app runner, made on first use.
 */
export function frontendRoutes(app: Hono, ctx: RouteContext, modules: FrontendModules): void {
  const { aiSdk, agUi } = modules;
  const runnerOf = async (c: Context): Promise<Runner> => {
    const name = idParam(c, 'app');
    await ctx.apps.assertApp(name);
    return ctx.apps.runner(name);
  };

  if (aiSdk) {
    const chats = new WeakMap<Runner, ChatHandler>();
    const chatOf = async (c: Context) => {
      const runner = await runnerOf(c);
      let handler = chats.get(runner);
      if (!handler) {
        // The server takes the user from the request, as /run_sse does (its own auth guards the routes).
        handler = aiSdk.createChatHandler({ runner, bodyLimit: ctx.bodyLimit, trustClientUserId: true });
        chats.set(runner, handler);
      }
      return handler;
    };
    app.post('/apps/:app/chat', async (c) => {
      const handler = await chatOf(c);
      return tracked(ctx, (options) => handler.chat(c.req.raw, options));
    });
    app.get('/apps/:app/chat/:id/stream', async (c) => {
      const handler = await chatOf(c);
      return handler.resume(c.req.raw, idParam(c, 'id'));
    });
    app.get('/apps/:app/chat/:id/messages', async (c) => {
      const handler = await chatOf(c);
      return handler.messages(c.req.raw, idParam(c, 'id'));
    });
  }

  if (agUi) {
    const handlers = new WeakMap<Runner, AgUiHandler>();
    app.post('/apps/:app/ag-ui', async (c) => {
      const runner = await runnerOf(c);
      let handler = handlers.get(runner);
      if (!handler) {
        handler = agUi.createAgUiHandler({ runner, bodyLimit: ctx.bodyLimit, trustClientUserId: true });
        handlers.set(runner, handler);
      }
      const h = handler;
      return tracked(ctx, (options) => h(c.req.raw, options));
    });
  }
}
