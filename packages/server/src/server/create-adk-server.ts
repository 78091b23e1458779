import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  type ArtifactService,
  type BaseAgent,
  ConfigError,
  createMemoryJobWorker,
  describeError,
  hasMemoryJobs,
  isAdkError,
  type MemoryService,
  type MemoryWorkerConfig,
  type ModelTokenPrice,
  type MultitaskStrategy,
  newId,
  PauseSigner,
  type PauseSigningOptions,
  type Plugin,
  priceTable,
  Runner,
  type SessionService,
  startMemoryJobWorker,
  type TraceRetention,
  type TraceStore,
} from '@adk/core';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { checkRequestOrigin, checkToken, originAllowed } from '../http/guard.js';
import { LiveSockets } from '../live/live-sockets.js';
import { A2aMounts, a2aRoutes } from '../routes/a2a.js';
import { appRoutes } from '../routes/apps.js';
import { artifactRoutes } from '../routes/artifacts.js';
import type { RouteContext } from '../routes/context.js';
import { debugRoutes } from '../routes/debug.js';
import { devRoutes } from '../routes/dev.js';
import { appProtocols, frontendRoutes, loadFrontendModules } from '../routes/frontends.js';
import { healthRoutes } from '../routes/health.js';
import { memoryRoutes } from '../routes/memory.js';
import { runRoutes } from '../routes/run.js';
import { runsRoutes } from '../routes/runs.js';
import { scoreRoutes } from '../routes/scores.js';
import { sessionRoutes } from '../routes/sessions.js';
import { timeTravelRoutes } from '../routes/time-travel.js';
import { type AdkServerUi, uiRoutes } from '../routes/ui.js';
import { usageRoutes } from '../routes/usage.js';
import { httpSpans } from '../telemetry/http-spans.js';
import { modelPayloadPlugin } from '../telemetry/model-payloads.js';
import {
  builtInRedactor,
  guardrailsRedactor,
  rememberingRedactor,
  type TextRedactor,
  type TraceContentCapture,
  traceContentFromEnv,
} from '../telemetry/redaction.js';
import { IN_MEMORY_SPAN_LIMITS, PERSISTED_SPAN_LIMITS } from '../telemetry/span-store.js';
import { TraceWriter } from '../telemetry/trace-writer.js';
import { setupTracing, type TracingState } from '../telemetry/tracing.js';
import { type AdkAppLoader, AppRegistry } from './apps.js';
import { statusOf } from './errors.js';
import { type AdkServerLogger, defaultLogger, errorLine } from './logger.js';
import { appMemoryJobHandlers } from './memory-agent-jobs.js';
import { RunTracker } from './run-tracker.js';
import { type ServerRunWorkerOptions, startServerRunWorker } from './run-worker.js';
import { type ServerScoringOptions, startServerScoring } from './scoring.js';
import { openStores } from './stores.js';

export interface AdkServerOptions {
  /** The apps: name → root agent, or a loader that finds them (e.g. one module per folder). */
  apps: Record<string, BaseAgent> | AdkAppLoader;
  /** Sessions; default SQL on `databaseUrl`, else embedded PGlite in `dataDir`. */
  sessionService?: SessionService;
  /** Artifacts; default SQL next to the sessions when @adk/session-sql has it, else in memory (warned). */
  artifactService?: ArtifactService;
  /** Memory; default in memory, or SQL next to the sessions when they are in SQL. */
  memoryService?: MemoryService;
  /**
   * With SQL sessions, give the memory a job outbox in the same database so every committed turn
   * is indexed in the background (default true; `false` indexes nothing by itself).
   */
  memoryJobs?: boolean;
  /**
   * Run memory jobs (indexing, and the handlers given here) in this process, one worker for every
   * app, when the memory has a job queue. Default: wherever the run worker runs (on unless
   * `runWorker: false`, as on API instances whose runs go to `adk worker` processes).
   */
  memoryWorker?: boolean | MemoryWorkerConfig;
  /** Plugins of every app's runner. */
  plugins?: Plugin[];
  /** Data folder of the embedded PGlite database. Default `.adk` in the working directory. */
  dataDir?: string;
  /** `postgres://…` (Postgres), `sqlite:…` (SQLite), `pglite:…` or a folder (PGlite). */
  databaseUrl?: string;
  /**
   * Largest number of pooled connections to a Postgres `databaseUrl` (default 10, `pg`'s default).
   * Each process also keeps one of them for session run locks and opens one more for A2A task events.
   */
  databasePoolSize?: number;
  /**
   * When set, every route requires `Authorization: Bearer <token>`, but the probes and the UI's
   * static files (`GET`/`HEAD` under `ui.basePath`, and `GET /`).
   */
  token?: string;
  /** Cross-origin callers allowed (CORS and the Origin check); `*` for any. Default none. */
  allowedOrigins?: string[];
  /** Host names answered besides loopback (`*` any, `.example.com` a domain). Default none. */
  allowedHosts?: string[];
  /** Largest request body, bytes. Default 16 MiB. */
  bodyLimit?: number;
  /** A web UI served under `ui.basePath`; `GET /` redirects to it. */
  ui?: AdkServerUi;
  /** Each app also an A2A agent at `/a2a/{app}`. Default true (off, with a warning, without @adk/a2a). */
  a2a?: boolean;
  /**
   * Each app also speaks the AI SDK's chat protocol (`/apps/{app}/chat`, with `@adk/ai-sdk`) and
   * AG-UI (`/apps/{app}/ag-ui`, with `@adk/ag-ui`) when those packages are installed. Default true.
   */
  frontends?: boolean;
  /** Extra routes, registered before the built-in ones (so eval routes replace the placeholders). */
  routes?: Array<(app: Hono) => void>;
  /**
   * `/run_live` pings each client this often (ms) and drops one that did not answer the previous
   * ping, ending its run and model connection. Default 30 000.
   */
  liveHeartbeatMs?: number;
  /**
   * Double-texting: a run started on a session that already has one queued or running waits for
   * it (`enqueue`, the default), fails with 409 (`reject`) or cancels it (`interrupt`). One value
   * for every app, or one per app name; a request's `multitaskStrategy` wins.
   */
  multitaskStrategy?: MultitaskStrategy | Record<string, MultitaskStrategy>;
  /**
   * Where background runs (`POST …/runs`) execute: in this process (`local`, default), or by a
   * worker that claims them from the database (`queue`; `adk api_server --workers N`, `adk worker`).
   */
  execution?: 'local' | 'queue';
  /**
   * Claim and execute runs nobody executes — queued ones (with `execution: 'queue'` somewhere) and
   * ones whose process stopped (crash recovery, resumed from the event log). Default: on when the
   * sessions are in SQL, polling every second; `false` turns it off.
   */
  runWorker?: boolean | ServerRunWorkerOptions;
  /** How long close() lets runs finish before aborting them, ms. Default 10 000. */
  shutdownGraceMs?: number;
  /** Where the server's own lines go. Default: warnings and errors to stderr. */
  logger?: AdkServerLogger;
  /** Log each HTTP request and each run's steps (LoggingPlugin of @adk/plugins) to `logger.info`. */
  logRequests?: boolean;
  /** Record core's spans for the `/debug/trace` routes (registers a tracer provider). Default true. */
  tracing?: boolean;
  /**
   * Record each model call's request and raw response on its `call_llm` span (for the UI's
   * Request/Response pane; 64 KB each at most, inline file bytes left out). Default true.
   */
  tracePayloads?: boolean;
  /**
   * Where finished spans are kept for the trace routes and the dev UI: by default the sessions'
   * database when it is SQL (traces outlive the process and every instance sees every instance's
   * spans), else only in this process's memory. `false` keeps them in memory only.
   */
  traceStore?: TraceStore | false;
  /**
   * What spans capture of the conversation (OpenTelemetry GenAI's content opt-in): `full` records
   * each model call's request and response (`tracePayloads`), `metadata` only names, models, token
   * counts, durations, statuses and (redacted) error messages, `off` not even descriptions or error
   * messages. Default: `ADK_TRACE_CONTENT` or `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`
   * (`true` = full), else `full` (`adk api_server` passes `metadata`, `adk web` `full`).
   */
  traceContent?: TraceContentCapture;
  /**
   * Mask secrets and personal data in spans before they are stored or exported (default true):
   * with `@adk/guardrails`' detectors when it is installed, else a built-in secret and payment-card
   * detector; or your own function.
   */
  traceRedaction?: boolean | TextRedactor;
  /**
   * Model prices (USD per million tokens) on top of the defaults of `@adk/core`'s
   * `DEFAULT_MODEL_PRICES`: each model call's span gets `adk.usage.cost_usd`, each trace its sum.
   */
  modelPrices?: Record<string, ModelTokenPrice>;
  /** Age and count limits of the persisted traces (default 7 days, 100 000 traces). */
  traceRetention?: TraceRetention;
  /**
   * Sign paused calls (confirmations, credential requests, workflow questions, long-running calls)
   * and refuse answers to calls without a valid signature with 403. Every instance serving the same
   * sessions needs the same keys; the first signs, all verify (rotation).
   */
  pauseSigning?: PauseSigningOptions;
  /**
   * Scorers on live traffic (`ScorersPlugin` of `@adk/core`): app-wide scorers, alerts and the
   * score job worker. Always on (agents may carry scorers: YAML `scorers:`, `attachScorers`);
   * results go to the sessions' database when it is SQL (as durable jobs), else to memory.
   * `false` turns scoring off; a plugin named `scorers` in `plugins` replaces it.
   */
  scoring?: ServerScoringOptions | false;
}

export interface AdkServer {
  /** The Fetch-API handler: mount it in any runtime, or listen with `listenAdkServer`. */
  fetch(request: Request): Promise<Response>;
  /** Graceful: refuses new runs, lets runs finish up to the grace period, aborts the rest, closes what it opened. */
  close(): Promise<void>;
  /** Where sessions are stored (database URL with the password hidden, or the service's class). */
  readonly storage: string;
  /**
   * The WebSocket routes (`GET /run_live`): hand it the Node HTTP server's `upgrade` events
   * (`listenAdkServer` does). Other paths are answered with a 404.
   */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
}

const DEFAULT_BODY_LIMIT = 16 * 1024 * 1024;

function strategyFor(
  option: AdkServerOptions['multitaskStrategy'],
  appName: string,
): { multitaskStrategy?: MultitaskStrategy } {
  const strategy = typeof option === 'string' ? option : option?.[appName];
  return strategy ? { multitaskStrategy: strategy } : {};
}
/** Liveness and readiness probes: answered whatever the Host header, without the token. */
const PROBE_PATHS = new Set(['/health', '/ready']);

type A2aModule = typeof import('@adk/a2a');
type PluginsModule = typeof import('@adk/plugins');

async function optionalImport<T>(load: () => Promise<T>): Promise<T | undefined> {
  try {
    return await load();
  } catch {
    return undefined;
  }
}

/** Builds the ADK api_server: the HTTP API, A2A per app, stores opened, safe defaults. */
export async function createAdkServer(options: AdkServerOptions): Promise<AdkServer> {
  const logger = options.logger ?? defaultLogger();
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const allowedOrigins = options.allowedOrigins ?? [];
  const allowedHosts = options.allowedHosts ?? [];

  let a2a: A2aModule | undefined;
  if (options.a2a !== false) {
    a2a = await optionalImport(() => import('@adk/a2a'));
    if (!a2a) {
      if (options.a2a === true)
        throw new ConfigError('a2a: true needs the optional peer dependency @adk/a2a');
      logger.warn('@adk/a2a is not installed: apps are not served over A2A.');
    }
  }

  const plugins = [...(options.plugins ?? [])];
  if (options.logRequests) {
    const mod = await optionalImport<PluginsModule>(() => import('@adk/plugins'));
    if (mod)
      plugins.push(
        new mod.LoggingPlugin({ logger: { info: (line) => logger.info(line) }, name: 'adk-server-log' }),
      );
    else logger.warn('logRequests: run steps are not logged without @adk/plugins (HTTP requests still are).');
  }

  const stores = await openStores(
    {
      ...(options.sessionService ? { sessionService: options.sessionService } : {}),
      ...(options.artifactService ? { artifactService: options.artifactService } : {}),
      ...(options.memoryService ? { memoryService: options.memoryService } : {}),
      ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
      ...(options.databaseUrl !== undefined ? { databaseUrl: options.databaseUrl } : {}),
      ...(options.databasePoolSize !== undefined ? { databasePoolSize: options.databasePoolSize } : {}),
      ...(options.traceRetention ? { traceRetention: options.traceRetention } : {}),
      ...(options.memoryJobs !== undefined ? { memoryJobs: options.memoryJobs } : {}),
      a2a: a2a !== undefined,
    },
    logger,
  );

  let tracing: TracingState | undefined;
  let http: Awaited<ReturnType<typeof httpSpans>> | undefined;
  try {
    if (options.tracing !== false) tracing = await setupTracing(logger);
    if (tracing?.exporting) http = await httpSpans();
  } catch (error) {
    // Nothing else holds the stores yet: close them rather than leak a database connection.
    await stores.close().catch(() => undefined);
    throw error;
  }

  const traceStore = options.traceStore === false ? undefined : (options.traceStore ?? stores.traceStore);
  const traceWriter =
    tracing?.collecting && traceStore ? new TraceWriter(tracing.store, traceStore, logger) : undefined;

  const traceContent = options.traceContent ?? traceContentFromEnv() ?? 'full';
  if (tracing?.collecting) {
    const redaction = options.traceRedaction ?? true;
    const redact =
      typeof redaction === 'function'
        ? redaction
        : redaction
          ? rememberingRedactor((await guardrailsRedactor()) ?? builtInRedactor)
          : undefined;
    tracing.store.configure({
      redact,
      content: traceContent,
      prices: priceTable(options.modelPrices ?? {}),
      // With a persistent store, the process keeps only what bridges to it (spans not written yet,
      // the event links of running turns): a smaller heap for the collector to walk.
      limits: traceWriter ? PERSISTED_SPAN_LIMITS : IN_MEMORY_SPAN_LIMITS,
    });
  }

  // First among the plugins, so it records the model's own response (see model-payloads.ts).
  if (tracing?.collecting && options.tracePayloads !== false && traceContent === 'full')
    plugins.unshift(modelPayloadPlugin(tracing.store));

  // One signer for every app: its keys are imported once.
  const pauseSigner = options.pauseSigning ? new PauseSigner(options.pauseSigning) : undefined;
  // One owner name for every app's runner of this process (run records, claims, heartbeats).
  const instanceId = `server-${newId()}`;
  // Run records carry their model calls' tokens and cost, priced like the spans.
  const runPrices = priceTable(options.modelPrices ?? {});
  let registry: AppRegistry | undefined;
  // A ScorersPlugin passed in `plugins` scores on its own terms: the server adds none beside it.
  const ownScorers = plugins.some((p) => p.name === 'scorers');
  const scoring =
    options.scoring === false || ownScorers
      ? undefined
      : startServerScoring({
          options: options.scoring ?? {},
          store: stores.scoreStore,
          queue: stores.scoreQueue,
          apps: () => registry as AppRegistry,
          sessionService: stores.sessionService,
          logger,
        });
  // Last among the plugins: its afterRun only starts work, after every other plugin's.
  if (scoring) plugins.push(scoring.plugin);
  const apps = new AppRegistry(
    options.apps,
    (appName, agent) =>
      new Runner({
        appName,
        agent,
        sessionService: stores.sessionService,
        artifactService: stores.artifactService,
        memoryService: stores.memoryService,
        // Memory jobs run on the server's one worker below (or on other processes), not per app.
        memoryWorker: false,
        ...(stores.runStore ? { runStore: stores.runStore } : {}),
        instanceId,
        ...(options.execution ? { execution: options.execution } : {}),
        plugins,
        ...strategyFor(options.multitaskStrategy, appName),
        ...(pauseSigner ? { pauseSigning: pauseSigner } : {}),
        prices: runPrices,
      }),
  );
  registry = apps;
  const runs = new RunTracker();
  const worker =
    stores.runStore && options.runWorker !== false
      ? startServerRunWorker(
          stores.runStore,
          apps,
          instanceId,
          runs,
          logger,
          typeof options.runWorker === 'object' ? options.runWorker : {},
        )
      : undefined;
  const memoryWorkerOption = options.memoryWorker ?? options.runWorker !== false;
  const memoryWorker =
    memoryWorkerOption !== false && hasMemoryJobs(stores.memoryService)
      ? startMemoryJobWorker(
          createMemoryJobWorker(stores.memoryService, stores.sessionService, {
            workerId: `${instanceId}-memory`,
            onError: (error) => logger.warn(errorLine('A memory job failed (retried)', error)),
            ...(typeof memoryWorkerOption === 'object' ? memoryWorkerOption : {}),
            // Each app's profile, observation and fact jobs go to its own agent's handlers.
            handlers: {
              ...appMemoryJobHandlers(() => apps, stores.sessionService),
              ...(typeof memoryWorkerOption === 'object' ? memoryWorkerOption.handlers : {}),
            },
          }),
          stores.memoryService.jobs,
        )
      : undefined;
  const frontends =
    options.frontends === false ? { aiSdk: undefined, agUi: undefined } : await loadFrontendModules();
  const ctx: RouteContext = {
    protocols: (name) => appProtocols(name, frontends, a2a !== undefined),
    bind: http?.bind,
    apps,
    stores,
    runs,
    logger,
    bodyLimit,
    spans: tracing?.collecting ? tracing.store : undefined,
    traces: traceWriter ? traceStore : undefined,
    scores: scoring?.store,
  };

  const app = new Hono();
  app.onError((error, c) => {
    // Hono's own refusals (HTTPException) keep their status; ours map by code.
    const status = error instanceof HTTPException ? error.status : statusOf(error);
    // Unexpected failures are hidden behind a generic 500; a typed 503 (shutting down, not ready) says what it is.
    if (status === 500 && !isAdkError(error, 'APP_LOAD')) {
      logger.error(errorLine(`${c.req.method} ${new URL(c.req.url).pathname}`, error));
      return c.json(
        { detail: 'Internal server error', error: 'Internal server error', code: 'INTERNAL' },
        500,
      );
    }
    const message = describeError(error);
    const code = isAdkError(error) ? error.code : 'INTERNAL';
    return c.json({ detail: message, error: message, code }, status as 400);
  });
  app.notFound((c) => c.json({ detail: 'Not Found', error: 'Not Found', code: 'NOT_FOUND' }, 404));

  if (http) app.use(http.middleware);
  if (options.logRequests) {
    app.use(async (c, next) => {
      const started = performance.now();
      await next();
      logger.info(
        `${c.req.method} ${new URL(c.req.url).pathname} ${c.res.status} ${(performance.now() - started).toFixed(1)}ms`,
      );
    });
  }
  // DNS-rebinding and cross-site guard first, then CORS (preflights carry no token), then the token.
  // Load balancer and orchestrator probes (`GET /health`, `/ready`) send the instance's address as
  // Host and carry no token; they read no data, so they pass without either check.
  const isProbe = (c: { req: { method: string; path: string } }) =>
    c.req.method === 'GET' && PROBE_PATHS.has(c.req.path);
  app.use(async (c, next) => {
    if (!isProbe(c)) checkRequestOrigin(c.req.raw, new URL(c.req.url), allowedHosts, allowedOrigins);
    await next();
  });
  if (allowedOrigins.length > 0) {
    app.use(
      cors({
        origin: (origin) => (originAllowed(origin, allowedOrigins) ? origin : null),
        allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
        allowHeaders: ['Authorization', 'Content-Type', 'A2A-Version', 'A2A-Extensions'],
        credentials: true,
      }),
    );
  }
  const token = options.token;
  if (token) {
    // The UI's own files (GET/HEAD under its base path, and the redirect at `/`) hold no data and
    // load before the page can ask for the token; every API route still needs it.
    const uiBase = options.ui ? `/${options.ui.basePath.replace(/^\/+|\/+$/g, '')}` : undefined;
    const isUiFile = (c: { req: { method: string; path: string } }) =>
      uiBase !== undefined &&
      (c.req.method === 'GET' || c.req.method === 'HEAD') &&
      (c.req.path === '/' || c.req.path === uiBase || c.req.path.startsWith(`${uiBase}/`));
    app.use(async (c, next) => {
      if (!isProbe(c) && !isUiFile(c)) checkToken(c.req.raw, token);
      await next();
    });
  }

  for (const register of options.routes ?? []) register(app);
  healthRoutes(app, ctx);
  appRoutes(app, ctx);
  sessionRoutes(app, ctx);
  runRoutes(app, ctx);
  runsRoutes(app, ctx);
  usageRoutes(app, ctx);
  timeTravelRoutes(app, ctx);
  artifactRoutes(app, ctx);
  debugRoutes(app, ctx);
  scoreRoutes(app, ctx);
  memoryRoutes(app, ctx);
  devRoutes(app, ctx);
  const mounts = a2a ? new A2aMounts(a2a, ctx) : undefined;
  if (mounts) a2aRoutes(app, ctx, mounts);
  frontendRoutes(app, ctx, frontends);
  if (options.ui) uiRoutes(app, options.ui);

  const live = new LiveSockets(ctx, {
    allowedHosts,
    allowedOrigins,
    token,
    maxPayload: bodyLimit,
    heartbeatMs: options.liveHeartbeatMs ?? 30_000,
  });

  const grace = options.shutdownGraceMs ?? 10_000;
  let closing: Promise<void> | undefined;
  const close = async () => {
    // Live sessions last as long as the conversation: they are closed (1001), not waited for.
    await live.close();
    worker?.stop();
    await runs.drain(grace);
    await memoryWorker?.stop().catch(() => undefined);
    await scoring
      ?.close()
      .catch((error: unknown) => logger.warn(errorLine('Scoring did not close cleanly', error)));
    await mounts?.close();
    for (const runner of await apps.loaded()) {
      await runner
        .close()
        .catch((error: unknown) => logger.warn(errorLine('A runner did not close cleanly', error)));
    }
    await tracing?.flush().catch(() => undefined);
    await traceWriter?.close().catch(() => undefined);
    await stores.close();
  };

  return {
    storage: stores.location,
    fetch: async (request) => app.fetch(request),
    handleUpgrade: (request, socket, head) => live.handleUpgrade(request, socket, head),
    close: () => {
      closing ??= close();
      return closing;
    },
  };
}
