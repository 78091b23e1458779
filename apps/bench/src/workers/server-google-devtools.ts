// Child process: @google/adk-devtools' own ADK API server (`AdkApiServer`, the class behind
// `adk api_server`), built the way its CLI builds it: the app folder devtools-agents/ loaded and
// bundled by devtools' agent loader, sessions from `getSessionServiceFromUri` ("memory://", its
// default, or a postgres:// URL), in-memory artifacts. Log level WARN instead of the CLI's default
// INFO, so it does not print a line per request (ours prints none either). The app is loaded by one
// turn before BENCH_READY (see loadTheApp).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort } from '../harness/free-port.js';
import { emitReady, emitSkip, reportCpuOnSignals, workerArgs } from './protocol.js';

export interface ServerDevtoolsArgs {
  store: 'memory' | 'postgres';
  postgresUrl?: string;
}

/**
 * The @google/adk that devtools itself imports (pnpm may hold more than one copy), so the session
 * service is built by the same code as under its CLI: the ESM twin of the entry `require` finds.
 */
function devtoolsOwnGoogleAdk(): string {
  const fromDevtools = createRequire(fileURLToPath(import.meta.resolve('@google/adk-devtools')));
  const cjsEntry = fromDevtools.resolve('@google/adk');
  return pathToFileURL(join(dirname(dirname(cjsEntry)), 'esm', 'index.js')).href;
}

/**
 * Devtools loads (compiles and bundles) an app on its first request, once per request that arrives
 * before the app is loaded: 50 first requests at once ran its heap out (4 GB) on this machine.
 * One turn on a session of its own loads the app before the measured load starts.
 */
async function loadTheApp(port: number): Promise<void> {
  const base = `http://127.0.0.1:${port}`;
  const created = await fetch(`${base}/apps/bench/users/bench-user/sessions/load-the-app`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  if (!created.ok) throw new Error(`create session: HTTP ${created.status} ${await created.text()}`);
  const run = await fetch(`${base}/run_sse`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      appName: 'bench',
      userId: 'bench-user',
      sessionId: 'load-the-app',
      newMessage: { role: 'user', parts: [{ text: 'hello' }] },
    }),
  });
  const text = await run.text();
  if (!run.ok || !text.includes('data: '))
    throw new Error(`first turn: HTTP ${run.status} ${text.slice(0, 300)}`);
}

async function main(): Promise<void> {
  const args = workerArgs<ServerDevtoolsArgs>();
  let devtools: typeof import('@google/adk-devtools');
  let google: typeof import('@google/adk');
  try {
    devtools = await import('@google/adk-devtools');
    google = await import(devtoolsOwnGoogleAdk());
  } catch (error) {
    return emitSkip(`@google/adk-devtools cannot be loaded: ${(error as Error).message.split('\n')[0]}`);
  }
  google.setLogLevel(google.LogLevel.WARN);
  // Devtools listens on the port it is given; with port 0 its printed URL would be wrong.
  const port = await freePort();
  const server = new devtools.AdkApiServer({
    logLevel: google.LogLevel.WARN,
    agentsDir: fileURLToPath(new URL('../devtools-agents', import.meta.url)),
    host: '127.0.0.1',
    port,
    serveDebugUI: false,
    // Typed against the bench's copy of @google/adk; at run time it is devtools' own.
    sessionService: google.getSessionServiceFromUri(
      args.store === 'postgres' ? (args.postgresUrl as string) : 'memory://',
    ) as never,
  });
  await server.start();
  await loadTheApp(port);
  // Devtools' agent loader exits on SIGUSR2 (a file-watcher restart signal); the bench sends SIGUSR2
  // to start the CPU measurement, so that listener goes (it only deletes devtools' temp folder).
  process.removeAllListeners('SIGUSR2');
  reportCpuOnSignals();
  emitReady({ url: `http://127.0.0.1:${port}` });
}

await main();
