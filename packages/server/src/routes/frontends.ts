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
 * The request with a signal that also fires at shutdown, and a response whose end (or cancel)
 * ends the run's tracking, so a shutdown lets chat runs finish like `/run_sse` runs.
 */
async function tracked(
  ctx: RouteContext,
  request: Request,
  handle: (request: Request) => Promise<Response>,
): Promise<Response> {
  const run = ctx.runs.start();
  let response: Response;
  try {
    response = await handle(new Request(request, { signal: AbortSignal.any([request.signal, run.signal]) }));
  } catch (error) {
    run.end();
    throw error;
  }
  if (!response.body) {
    run.end();
    return response;
  }
  return new Response(untilEnd(response.body, run.end), {
    status: response.status,
    headers: response.headers,
  });
}

/** The response body, ending the tracking when it is read to the end or cancelled. */
function untilEnd(body: ReadableStream<Uint8Array>, end: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          end();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        end();
        controller.error(error);
      }
    },
    async cancel(reason) {
      end();
      await reader.cancel(reason);
    },
  });
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
      return tracked(ctx, c.req.raw, (request) => handler.chat(request));
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
      return tracked(ctx, c.req.raw, (request) => h(request));
    });
  }
}
