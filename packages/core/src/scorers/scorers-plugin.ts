import type { InvocationContext } from '../agents/invocation-context.js';
import { isAdkError } from '../errors/errors.js';
import type { Event } from '../events/event.js';
import type { MemoryJob, MemoryJobHandler, MemoryJobQueue } from '../memory/jobs.js';
import type { Plugin, RunHookArgs } from '../plugins/plugin.js';
import type { TraceContext } from '../telemetry/tracing.js';
import { checkScoreAlert, evaluateScoreAlerts, type ScoreAlert } from './score-alerts.js';
import type { ScoreStore } from './score-store.js';
import {
  isSampled,
  normalizeScore,
  type Scorer,
  ScorerTimeoutError,
  type ScorerTurn,
  scorerTurnOf,
} from './scorer.js';

/** The memory-job kind of a durable scoring job (one per scorer and invocation). */
export const SCORE_JOB_KIND = 'score';

const attached = new WeakMap<object, readonly Scorer[]>();

/** Attaches scorers to an agent: a `ScorersPlugin` scores the turns this agent runs as root. */
export function attachScorers<T extends object>(agent: T, scorers: readonly Scorer[]): T {
  attached.set(agent, [...(attached.get(agent) ?? []), ...scorers]);
  return agent;
}

/** The scorers attached to an agent with {@link attachScorers}. */
export function scorersOf(agent: object): readonly Scorer[] {
  return attached.get(agent) ?? [];
}

/** The trace id of an OpenTelemetry span (any SDK span has `spanContext()`); none when tracing is off. */
function traceIdOf(trace: TraceContext): string | undefined {
  const span = trace.span as { spanContext?: () => { traceId?: string } } | undefined;
  const id = span?.spanContext?.().traceId;
  return id && !/^0+$/.test(id) ? id : undefined;
}

export interface RunScorerOptions {
  store: ScoreStore;
  alerts?: readonly ScoreAlert[];
  fetch?: typeof fetch;
  onError?: (error: unknown) => void;
  signal?: AbortSignal;
}

/**
 * Runs one scorer on one turn and saves its result: a throwing or timing-out scorer (or filter) is
 * saved as a failed score. Resolves to whether a result
 * was saved (false when the filter skipped the turn or the store had one already). Only a store
 * failure rejects.
 */
export async function runScorer(
  scorer: Scorer,
  turn: ScorerTurn,
  options: RunScorerOptions,
): Promise<boolean> {
  const started = Date.now();
  const timeoutMs = scorer.timeoutMs ?? 30_000;
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let outcome: { score: number; reason?: string } | { error: string } | 'skipped';
  try {
    outcome = await Promise.race([
      (async () => {
        if (scorer.filter && !(await scorer.filter(turn))) return 'skipped' as const;
        return normalizeScore(await scorer.score(turn, { signal: controller.signal }));
      })(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const error = new ScorerTimeoutError(scorer.name, timeoutMs);
          controller.abort(error);
          reject(error);
        }, timeoutMs);
      }),
    ]);
  } catch (error) {
    outcome = {
      error: isAdkError(error)
        ? `${error.code}: ${error.message}`
        : error instanceof Error
          ? `${error.name}: ${error.message}`
          : String(error),
    };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
  if (outcome === 'skipped') return false;
  const createdAt = Date.now();
  const saved = await options.store.save({
    appName: turn.appName,
    userId: turn.userId,
    sessionId: turn.sessionId,
    invocationId: turn.invocationId,
    ...(turn.traceId ? { traceId: turn.traceId } : {}),
    scorerName: scorer.name,
    scorerVersion: scorer.version,
    durationMs: createdAt - started,
    createdAt,
    ...('error' in outcome
      ? { status: 'failed' as const, error: outcome.error }
      : {
          status: 'ok' as const,
          score: outcome.score,
          ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}),
        }),
  });
  if (saved && options.alerts && options.alerts.length > 0 && !('error' in outcome))
    await evaluateScoreAlerts({
      alerts: options.alerts,
      store: options.store,
      appName: turn.appName,
      scorerName: scorer.name,
      at: createdAt,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.onError ? { onError: options.onError } : {}),
    });
  return saved;
}

export interface ScorersPluginOptions {
  /** App-wide scorers (scorers attached to the root agent with `attachScorers` are added). */
  scorers?: readonly Scorer[];
  store: ScoreStore;
  /** Seeds sampling: the same seed samples the same invocations (default: random per plugin). */
  seed?: string;
  /**
   * Durable mode: each sampled (scorer, turn) becomes a job of kind `score` in this outbox (idempotent
   * by scorer and invocation), run by a `MemoryJobWorker` with {@link scoreJobHandler}. Without
   * it the scorers run in this process, in the background, after the turn.
   */
  queue?: MemoryJobQueue;
  alerts?: readonly ScoreAlert[];
  /** The webhook client (default global fetch). */
  fetch?: typeof fetch;
  /** Store, enqueue and webhook failures (scorer failures are saved as failed scores instead). */
  onError?: (error: unknown) => void;
  /** Most scorer runs at once in this process; more turns wait (default 8). */
  concurrency?: number;
}

/**
 * Scores turns after they end. Its `afterRun` hook only decides which scorers sample the turn and
 * starts their work without awaiting it, so the turn's response and the run's end never wait for
 * a scorer; `flush()` waits for work started so far (tests, graceful shutdown).
 */
export class ScorersPlugin implements Plugin {
  readonly name = 'scorers';
  private readonly options: ScorersPluginOptions;
  private readonly seed: string;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly waiting: (() => void)[] = [];
  private running = 0;

  constructor(options: ScorersPluginOptions) {
    this.options = options;
    for (const alert of options.alerts ?? []) checkScoreAlert(alert);
    this.seed = options.seed ?? Math.random().toString(36).slice(2);
  }

  /** The scorers a turn of this root agent is scored by (app-wide first; a name given twice: the agent's wins). */
  scorersFor(agent: object): Scorer[] {
    const byName = new Map<string, Scorer>();
    for (const s of this.options.scorers ?? []) byName.set(s.name, s);
    for (const s of scorersOf(agent)) byName.set(s.name, s);
    return [...byName.values()];
  }

  afterRun({ context }: RunHookArgs): void {
    const chosen = this.scorersFor(context.rootAgent).filter(
      (s) =>
        (s.agentName === undefined || s.agentName === context.rootAgent.name) &&
        isSampled(s.sampleRate, s.name, context.invocationId, this.seed),
    );
    if (chosen.length === 0) return;
    const traceId = traceIdOf(context.trace);
    const base = {
      appName: context.appName,
      userId: context.userId,
      sessionId: context.session.id,
      invocationId: context.invocationId,
      agentName: context.rootAgent.name,
      ...(traceId ? { traceId } : {}),
    };
    if (this.options.queue) {
      this.track(this.enqueue(this.options.queue, chosen, base));
      return;
    }
    // The session copy keeps growing in later turns: take this turn's events now.
    const turn = scorerTurnOf({ ...base, events: eventsOf(context) });
    for (const scorer of chosen) this.track(this.limited(() => runScorer(scorer, turn, this.runOptions())));
  }

  /** Waits for the scoring (or enqueueing) started so far. */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  async close(): Promise<void> {
    await this.flush();
  }

  private runOptions(): RunScorerOptions {
    return {
      store: this.options.store,
      ...(this.options.alerts ? { alerts: this.options.alerts } : {}),
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
      ...(this.options.onError ? { onError: this.options.onError } : {}),
    };
  }

  private async enqueue(
    queue: MemoryJobQueue,
    scorers: readonly Scorer[],
    base: {
      appName: string;
      userId: string;
      sessionId: string;
      invocationId: string;
      agentName: string;
      traceId?: string;
    },
  ): Promise<void> {
    await queue.enqueue(
      scorers.map((s) => ({
        kind: SCORE_JOB_KIND,
        appName: base.appName,
        userId: base.userId,
        sessionId: base.sessionId,
        // The outbox's idempotency key: one job per (scorer, invocation) (names have no "|").
        eventIds: [`${s.name}|${base.invocationId}`],
        payload: {
          scorerName: s.name,
          invocationId: base.invocationId,
          agentName: base.agentName,
          ...(base.traceId ? { traceId: base.traceId } : {}),
        },
      })),
    );
  }

  private async limited<T>(task: () => Promise<T>): Promise<T> {
    const max = this.options.concurrency ?? 8;
    while (this.running >= max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    // Off the caller's stack: afterRun returns before any scorer code runs.
    await Promise.resolve();
    try {
      return await task();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  private track(work: Promise<unknown>): void {
    const tracked = work.catch((error) => this.options.onError?.(error));
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
  }
}

function eventsOf(context: InvocationContext): Event[] {
  return context.session.events.filter((e) => e.invocationId === context.invocationId && !e.partial);
}

export interface ScoreJobHandlerOptions extends Omit<RunScorerOptions, 'signal'> {
  /** The scorer of a job by app and name (e.g. the app's ScorersPlugin's list); undefined: retried later. */
  scorerFor: (appName: string, scorerName: string) => Scorer | undefined | Promise<Scorer | undefined>;
  /** Loads the session's events (e.g. from the session service). */
  loadEvents: (job: MemoryJob, signal: AbortSignal) => Promise<readonly Event[]>;
}

/**
 * The handler of `score` jobs for a `MemoryJobWorker`: loads the turn, runs the scorer and saves
 * the result. The store's idempotency makes a job retried after a crash save one result.
 */
export function scoreJobHandler(options: ScoreJobHandlerOptions): MemoryJobHandler {
  return async (jobs, context) => {
    for (const job of jobs) {
      const p = job.payload ?? {};
      const scorerName = typeof p.scorerName === 'string' ? p.scorerName : undefined;
      const invocationId = typeof p.invocationId === 'string' ? p.invocationId : undefined;
      if (!scorerName || !invocationId || job.sessionId === undefined)
        throw new Error(`Score job ${job.id} has no scorer, invocation or session`);
      const scorer = await options.scorerFor(job.appName, scorerName);
      if (!scorer) throw new Error(`No scorer '${scorerName}' for app '${job.appName}' in this worker`);
      const events = await options.loadEvents(job, context.signal);
      const turn = scorerTurnOf({
        appName: job.appName,
        userId: job.userId,
        sessionId: job.sessionId,
        invocationId,
        agentName: typeof p.agentName === 'string' ? p.agentName : '',
        ...(typeof p.traceId === 'string' ? { traceId: p.traceId } : {}),
        events,
      });
      await runScorer(scorer, turn, { ...options, signal: context.signal });
    }
  };
}
