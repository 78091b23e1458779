// Child process: @adk/server (createAdkServer + listenAdkServer) serving the benchmark app, sessions
// in embedded PGlite (a fresh data folder), Postgres, or in memory (to tell HTTP and framework
// costs from storage). Prints BENCH_READY with its URL.
import { InMemorySessionService } from '@adk/core';
import { adkServerApp } from '../frameworks/server-apps.js';
import { emitReady, emitSkip, reportCpuOnSignals, workerArgs } from './protocol.js';

export interface ServerAdkArgs {
  store: 'memory' | 'pglite' | 'postgres';
  dataDir: string;
  postgresUrl?: string;
  /** `false`: no spans at all (the traces scenario's baseline). Default: the server's default (on). */
  tracing?: boolean;
  /** What spans capture of the conversation (`adk api_server` uses `metadata`). Default: the server's (`full`). */
  traceContent?: 'off' | 'metadata' | 'full';
  /** `false`: spans stay in the process's bounded store, none is written to the database. */
  persistSpans?: boolean;
}

async function main(): Promise<void> {
  const args = workerArgs<ServerAdkArgs>();
  let server: typeof import('@adk/server');
  try {
    server = await import('@adk/server');
  } catch (error) {
    return emitSkip(`@adk/server cannot be loaded: ${(error as Error).message.split('\n')[0]}`);
  }
  const adk = await server.createAdkServer({
    apps: { bench: adkServerApp() },
    ...(args.store === 'postgres'
      ? { databaseUrl: args.postgresUrl }
      : args.store === 'memory'
        ? {
            sessionService: new InMemorySessionService(),
            logger: { info() {}, warn() {}, error: console.error },
          }
        : { dataDir: args.dataDir }),
    a2a: false,
    ...(args.tracing === false ? { tracing: false } : {}),
    ...(args.traceContent ? { traceContent: args.traceContent } : {}),
    ...(args.persistSpans === false ? { traceStore: false as const } : {}),
  });
  const listening = await server.listenAdkServer(adk, { port: 0 });
  reportCpuOnSignals();
  emitReady({ url: listening.url, storage: adk.storage });
}

await main();
