import {
  InMemoryMemoryService,
  InMemoryScoreStore,
  type MemoryJobQueue,
  MemoryJobWorker,
  SCORE_JOB_KIND,
  type ScoreAlert,
  type Scorer,
  ScorersPlugin,
  type ScoreStore,
  type SessionService,
  scoreJobHandler,
} from '@adk/core';
import type { AppRegistry } from './apps.js';
import { type AdkServerLogger, errorLine } from './logger.js';

/** The server's `scoring` option: app-wide scorers, alerts, sampling seed and the job worker. */
export interface ServerScoringOptions {
  /** App-wide scorers (YAML agents and `attachScorers` add their own per agent). */
  scorers?: Scorer[];
  /** Threshold alerts (webhooks) on the scores' windows. */
  alerts?: ScoreAlert[];
  /** Seeds sampling (see ScorersPlugin). */
  seed?: string;
  /**
   * Run score jobs in this process (default true when the sessions are in SQL). Off: another
   * instance (`adk worker`, or a server with it on) runs them from the shared outbox.
   */
  worker?: boolean;
  /** Idle poll interval of the score job worker, ms (default 1000). */
  pollMs?: number;
}

export interface ServerScoring {
  plugin: ScorersPlugin;
  store: ScoreStore;
  close(): Promise<void>;
}

/**
 * Scorers of the server's apps. With a SQL database, each sampled turn is a `score` job in the
 * outbox beside the sessions (durable, idempotent by scorer and invocation, claimed with leases by
 * every instance's worker); in memory, scorers run in the background of this process.
 */
export function startServerScoring(params: {
  options: ServerScoringOptions;
  store: ScoreStore | undefined;
  queue: MemoryJobQueue | undefined;
  /** The apps (read lazily: the registry is built with the plugin). */
  apps: () => AppRegistry;
  sessionService: SessionService;
  logger: AdkServerLogger;
}): ServerScoring {
  const { options, queue, logger } = params;
  const store = params.store ?? new InMemoryScoreStore();
  const onError = (error: unknown) => logger.warn(errorLine('Scoring failed', error));
  const plugin = new ScorersPlugin({
    store,
    ...(queue ? { queue } : {}),
    ...(options.scorers ? { scorers: options.scorers } : {}),
    ...(options.alerts ? { alerts: options.alerts } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    onError,
  });
  let worker: MemoryJobWorker | undefined;
  if (queue && options.worker !== false) {
    worker = new MemoryJobWorker({
      queue,
      // Score jobs do not touch memory; the worker's contract asks for a service.
      memory: new InMemoryMemoryService(),
      pollMs: options.pollMs ?? 1000,
      workerId: `score-worker-${Math.random().toString(36).slice(2)}`,
      onError,
    });
    worker.registerHandler(
      SCORE_JOB_KIND,
      scoreJobHandler({
        store,
        ...(options.alerts ? { alerts: options.alerts } : {}),
        onError,
        scorerFor: async (appName, name) => {
          const apps = params.apps();
          if (!(await apps.has(appName))) return undefined;
          const runner = await apps.runner(appName);
          return plugin.scorersFor(runner.agent).find((s) => s.name === name);
        },
        loadEvents: async (job) =>
          (
            await params.sessionService.getSession({
              appName: job.appName,
              userId: job.userId,
              sessionId: job.sessionId ?? '',
            })
          )?.events ?? [],
      }),
    );
    worker.start();
  }
  return {
    plugin,
    store,
    close: async () => {
      await plugin.flush();
      await worker?.stop();
    },
  };
}
