// Child process: @adk/server with the dev UI on Postgres, seeded with a user who has `sessions`
// sessions and a session of `events` events, for the sessions-at-scale figures. Before it says it is
// ready it times the store's own `listSessions` (one page, first and deep, and the whole list), so
// the HTTP figures the parent takes can be told from the store's.
import { createEvent, type SessionService } from '@adk/core';
import { adkServerApp } from '../frameworks/server-apps.js';
import { emitReady, emitSkip, workerArgs } from './protocol.js';

export interface ScaleServerArgs {
  postgresUrl: string;
  sessions: number;
  events: number;
  pageSize: number;
  iterations: number;
}

export interface ScaleServerInfo {
  url: string;
  /** The user with `sessions` sessions, and the id of the long session (user `user`, app `bench`). */
  pagedUser: string;
  longSession: string;
  seedMs: { sessions: number; events: number };
  store: { firstPageMs: number[]; deepPageMs: number[]; fullListMs: number[] };
}

async function timed(fn: () => Promise<unknown>, times: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

async function main(): Promise<void> {
  const args = workerArgs<ScaleServerArgs>();
  let server: typeof import('@adk/server');
  let devUi: typeof import('@adk/dev-ui').devUi;
  try {
    server = await import('@adk/server');
    ({ devUi } = await import('@adk/dev-ui'));
  } catch (error) {
    return emitSkip(
      `@adk/server or @adk/dev-ui cannot be loaded: ${(error as Error).message.split('\n')[0]}`,
    );
  }
  const adk = await server.createAdkServer({
    apps: { bench: adkServerApp() },
    databaseUrl: args.postgresUrl,
    ui: devUi(),
    a2a: false,
    tracing: false,
    logger: { info() {}, warn() {}, error: console.error },
  });
  const listening = await server.listenAdkServer(adk, { port: 0 });
  const { createSqlStores } = await import('@adk/session-sql');
  const stores = await createSqlStores(args.postgresUrl);
  const sessions: SessionService = stores.sessions;
  const appName = 'bench';
  const pagedUser = 'pager';

  let t0 = performance.now();
  const batch = 32;
  for (let i = 0; i < args.sessions; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, args.sessions - i) }, (_, j) =>
        sessions.createSession({
          appName,
          userId: pagedUser,
          sessionId: `s-${String(i + j).padStart(6, '0')}`,
        }),
      ),
    );
  }
  const seededSessions = performance.now() - t0;

  t0 = performance.now();
  const longSession = 'long-session';
  const session = await sessions.createSession({ appName, userId: 'user', sessionId: longSession });
  for (let i = 0; i < args.events; i++) {
    const user = i % 2 === 0;
    await sessions.appendEvent(
      session,
      createEvent({
        invocationId: `e-${Math.floor(i / 2)}`,
        author: user ? 'user' : 'assistant',
        content: {
          role: user ? 'user' : 'model',
          parts: [
            {
              text: user
                ? `Question ${i}: what is the weather in Paris today?`
                : `Answer ${i}: it is **sunny** in Paris, 21 °C, with a light breeze from the west.`,
            },
          ],
        },
      }),
    );
  }
  const seededEvents = performance.now() - t0;

  const list = (pageToken?: string) =>
    sessions.listSessions({
      appName,
      userId: pagedUser,
      pageSize: args.pageSize,
      ...(pageToken ? { pageToken } : {}),
    });
  let deepToken: string | undefined;
  for (let page = 0, token: string | undefined; page < 100; page++) {
    const next = await list(token);
    token = next.nextPageToken;
    if (!token) break;
    deepToken = token;
  }
  const store = {
    firstPageMs: await timed(() => list(), args.iterations),
    deepPageMs: await timed(() => list(deepToken), args.iterations),
    fullListMs: await timed(() => sessions.listSessions({ appName, userId: pagedUser }), 5),
  };
  await stores.close();
  emitReady({
    url: listening.url,
    pagedUser,
    longSession,
    seedMs: { sessions: seededSessions, events: seededEvents },
    store,
  } satisfies ScaleServerInfo);
  process.on('SIGTERM', () => {
    void listening.close().finally(() => process.exit(0));
  });
}

await main();
