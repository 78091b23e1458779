// Child process: @adk/server (createAdkServer + listenAdkServer) serving the benchmark app, sessions
// in embedded PGlite (a fresh data folder) or Postgres. Prints BENCH_READY with its URL.
import { adkServerApp } from '../frameworks/server-apps.js';
import { emitReady, emitSkip, reportCpuOnSignals, workerArgs } from './protocol.js';

export interface ServerAdkArgs {
  store: 'pglite' | 'postgres';
  dataDir: string;
  postgresUrl?: string;
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
    ...(args.store === 'postgres' ? { databaseUrl: args.postgresUrl } : { dataDir: args.dataDir }),
    a2a: false,
  });
  const listening = await server.listenAdkServer(adk, { port: 0 });
  reportCpuOnSignals();
  emitReady({ url: listening.url, storage: adk.storage });
}

await main();
