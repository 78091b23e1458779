import { CancelledError, ConcurrentInvocationError, describeError, errorCodeOf } from '../errors/errors.js';
import { type Event, eventFunctionResponses } from '../events/event.js';
import type { SessionService } from '../sessions/session.js';
import type { PriceTable } from '../telemetry/pricing.js';
import { nowMs } from '../utils/clock.js';
import { newId } from '../utils/ids.js';
import type {
  ListRunsParams,
  ListRunsResult,
  MultitaskStrategy,
  RunInput,
  RunKey,
  RunRecord,
  RunStatus,
  RunStore,
} from './run-store.js';

/** What the manager needs of a run request (the Runner's RunParams). */
export interface ManagedRunParams extends RunInput {
  userId: string;
  sessionId: string;
  signal?: AbortSignal;
  invocationId?: string;
  multitaskStrategy?: MultitaskStrategy;
}

/**
 * Executes one invocation; awaits `started` once it holds the session (out of the queue), so the
 * record says `running` and names its owner before the first event, and may call `end` while it
 * still holds the session (before its run lock is released), so no other process ever sees the
 * run `running` with its session free. `end` is called for it afterwards when it did not.
 */
export type RunBody<P> = (
  params: P,
  started: () => Promise<void>,
  end: RunTracker['end'],
  /** The run's tracker: its record and `replaceInput` (its events are observed by the caller). */
  tracker?: RunTracker,
) => AsyncGenerator<Event, void, undefined>;

export interface RunEventsOptions {
  /** Only events after this stored event id (an SSE `Last-Event-ID`). */
  after?: string;
  signal?: AbortSignal;
  /** How often a run executing in another process is polled (ms, default 100). */
  pollIntervalMs?: number;
}

export interface RunTiming {
  /** How often a shared store is asked for cancel requests of the runs executing here (ms, default 200). */
  cancelPollMs?: number;
  /** How often those runs' heartbeat is recorded (ms, default 2000). */
  heartbeatMs?: number;
}

/** One run being tracked (see `RunManager.begin`). */
export interface RunTracker<P extends ManagedRunParams = ManagedRunParams> {
  readonly record: RunRecord;
  /** The caller's params with the run's invocation id and signal. */
  readonly params: P & { invocationId: string; signal: AbortSignal };
  /** Marks the run running (call once it holds the session). */
  started: () => Promise<void>;
  observe(event: Event): void;
  /**
   * Replaces the input kept in the run's record: input guardrails redacted the message (or
   * withheld it), and the original must not outlive the run in the store.
   */
  replaceInput?(input: RunInput): Promise<void>;
  /** Records how the run ended; only the first call counts. */
  end(completed: boolean, thrown?: unknown): Promise<void>;
}

export interface WorkerOptions {
  /** How often to look for runs to claim when none was found (ms, default 200). */
  pollIntervalMs?: number;
  /**
   * A run whose owner has not recorded a heartbeat for this long is taken over (ms, default 1.75
   * heartbeat intervals: with one poll on top, a run is taken over within two heartbeat intervals of
   * its owner's last sign of life, and a live owner, which records one every interval, has most of
   * an interval of slack).
   */
  staleAfterMs?: number;
  /**
   * A running run whose owner no longer holds its session (a store that can tell: Postgres with run
   * locks) is taken over once its heartbeat is this old (ms, default 500).
   */
  orphanAfterMs?: number;
  /** Runs executing in this process at once, beyond which nothing more is claimed (default 10). */
  maxConcurrentRuns?: number;
  /** Told about a failed claim (the worker keeps going). */
  onError?: (error: unknown) => void;
}

export interface RunWorker {
  stop(): void;
}

/** A run executing in this process. */
export interface ActiveRun {
  /** The run's committed events that report token usage (for its record's `usage`). */
  usageEvents: Event[];
  record: RunRecord;
  controller: AbortController;
  /**
   * For tails that attach while it runs: when `complete`, every committed event of the run so far
   * plus the partial ones since a tail was attached; otherwise only events since a tail attached.
   */
  events: Event[];
  /** The run started in this process from a fresh record: `events` holds all of its events. */
  complete: boolean;
  listeners: Set<() => void>;
  done: boolean;
  finished: Promise<void>;
  resolveFinished: () => void;
}

/** How old a heartbeat must be before a run whose owner lost its session is taken over (ms). */
export const DEFAULT_ORPHAN_AFTER_MS = 500;

const sessionKeyOf = (userId: string, sessionId: string) => `${userId}\u0000${sessionId}`;

/**
 * Turns invocations into run records (see docs/architecture.md, "Runs"): creates the record, applies
 * the double-texting strategy, keeps the status, heartbeat and error current, stops a run when a
 * cancel request reaches this process, and serves tails of a run's events.
 */
export class RunManager {
  /**
   * The invocation a run continues when its caller named none (an answer to a paused graph
   * workflow continues that workflow's invocation); undefined for a new invocation.
   */
  invocationIdFor: ((params: ManagedRunParams) => Promise<string | undefined>) | undefined;
  /**
   * Whether a run executed in this process may keep its message in its record. Not when input
   * guardrails may redact it: the record is written before they run, and a database keeps old row
   * versions on disk (docs/decisions/0030-guardrails.md).
   */
  keepsMessage: (() => boolean) | undefined;
  /** Prices of the model calls counted in each run's `usage` (default: `priceTable()`). */
  prices: PriceTable | undefined;
  /** The model a call was made with when its event does not name it (`modelVersion`). */
  modelOf: ((event: Event) => string | undefined) | undefined;
  private readonly active = new Map<string, ActiveRun>();
  private readonly bySession = new Map<string, Set<ActiveRun>>();
  private unsubscribe: (() => void) | undefined;
  private poller: NodeJS.Timeout | undefined;
  private lastHeartbeat = 0;
  private polling = false;

  constructor(
    readonly appName: string,
    readonly store: RunStore,
    private readonly sessions: SessionService,
    readonly instanceId: string,
    private readonly defaultStrategy: MultitaskStrategy,
    private readonly timing: RunTiming = {},
  ) {}

  /** Runs `body` as a run (a foreground one: the caller iterates it). */
  async *execute<P extends ManagedRunParams>(
    params: P,
    body: RunBody<P>,
    existing?: RunRecord,
    fresh = existing === undefined,
  ): AsyncGenerator<Event, void, undefined> {
    const tracker = await this.begin(params, existing, fresh);
    let completed = false;
    let thrown: unknown;
    try {
      for await (const event of body(tracker.params, tracker.started, tracker.end, tracker)) {
        tracker.observe(event);
        yield event;
      }
      completed = true;
    } catch (error) {
      thrown = error;
      throw error;
    } finally {
      await tracker.end(completed, thrown);
    }
  }

  /**
   * Starts tracking one run (its record created, unless `existing`): `params` carry its invocation
   * id and signal; the caller runs it, passing each event to `observe`, and calls `end` once
   * (completed: the events ran out; else it threw `thrown` or the caller stopped). `fresh`: the
   * run has no events yet (its record was just created), so its tails need not read the store.
   */
  async begin<P extends ManagedRunParams>(
    params: P,
    existing?: RunRecord,
    fresh = existing === undefined,
  ): Promise<RunTracker<P>> {
    this.listen();
    const record = existing ?? (await this.admit(params, false));
    const active = this.activate(record, params.signal, fresh);
    let status: RunStatus = 'succeeded';
    let error: RunRecord['error'];
    const pending = new Set<string>();
    let ended = false;
    return {
      record,
      params: { ...params, invocationId: record.invocationId, signal: active.controller.signal },
      started: async () => {
        if (active.controller.signal.aborted) return;
        const patch = { status: 'running' as const, startedAt: nowMs(), owner: this.instanceId };
        Object.assign(active.record, patch);
        await this.store.updateRun(this.key(record.id), patch);
      },
      replaceInput: async (input) => {
        active.record.input = input;
        await this.store.updateRun(this.key(record.id), { input });
      },
      observe: (event) => {
        if (active.listeners.size > 0 || (active.complete && !event.partial)) this.publish(active, event);
        if (event.partial) return;
        if (event.usageMetadata) active.usageEvents.push(event);
        for (const id of event.longRunningToolIds ?? []) pending.add(id);
        if (pending.size > 0) for (const r of eventFunctionResponses(event)) pending.delete(r.id);
        // The last committed event decides: an error event a run recovered from (a retried
        // workflow node) does not fail it.
        if (event.errorCode) {
          status = event.errorCode === 'CANCELLED' ? 'cancelled' : 'failed';
          error = { code: event.errorCode, message: event.errorMessage ?? event.errorCode };
        } else if (error) {
          status = 'succeeded';
          error = undefined;
        }
      },
      end: async (completed, thrown) => {
        if (ended) return;
        ended = true;
        if (completed) {
          if (status === 'succeeded' && pending.size > 0) status = 'paused';
          if (status === 'succeeded' && active.controller.signal.aborted) {
            status = 'cancelled';
            error = { code: 'CANCELLED', message: 'The run was cancelled' };
          }
        } else if (thrown !== undefined) {
          const cancelled = active.controller.signal.aborted;
          status = cancelled ? 'cancelled' : 'failed';
          error = { code: cancelled ? 'CANCELLED' : errorCodeOf(thrown), message: describeError(thrown) };
        } else if (!error) {
          // The caller stopped iterating: the run ends here.
          status = 'cancelled';
          error = { code: 'CANCELLED', message: 'The caller stopped reading the run' };
        }
        await this.finish(active, status, error);
      },
    };
  }

  /**
   * Checks the double-texting strategy against the session's queued and running runs and
   * creates the run's record (queued).
   */
  async admit(params: ManagedRunParams, background: boolean, executeHere = true): Promise<RunRecord> {
    const strategy = params.multitaskStrategy ?? this.defaultStrategy;
    if (strategy !== 'enqueue') {
      const others = await this.unfinishedRuns(params.userId, params.sessionId);
      if (others.length > 0 && strategy === 'reject') {
        throw new ConcurrentInvocationError(
          `Session ${params.sessionId} already has a run in progress (${others[0]?.id}); wait for it to finish, or start the run with multitaskStrategy 'enqueue' or 'interrupt'`,
          { details: { runId: others[0]?.id } },
        );
      }
      if (strategy === 'interrupt') await Promise.all(others.map((run) => this.cancel(run.id)));
    }
    const input: RunInput = {};
    if (params.newMessage && (!executeHere || (this.keepsMessage?.() ?? true)))
      input.newMessage = params.newMessage;
    else if (params.newMessage) input.messageWithheld = true;
    if (params.stateDelta) input.stateDelta = params.stateDelta;
    if (params.runConfig) input.runConfig = params.runConfig;
    const createdAt = nowMs();
    return this.store.createRun({
      id: newId(),
      appName: this.appName,
      userId: params.userId,
      sessionId: params.sessionId,
      invocationId: params.invocationId ?? (await this.invocationIdFor?.(params)) ?? `e-${newId()}`,
      status: 'queued',
      background,
      // A run this process executes is owned from the start, so no worker claims it meanwhile.
      ...(executeHere ? { owner: this.instanceId, heartbeatAt: createdAt } : {}),
      createdAt,
      input,
    });
  }

  /** Asks the run to stop, wherever it executes; resolves with its record (undefined: unknown run). */
  async cancel(runId: string): Promise<RunRecord | undefined> {
    const local = this.active.get(runId);
    this.cancelHere(runId);
    const record = await this.store.requestCancel(this.key(runId));
    if (!record) return undefined;
    if (local) {
      await local.finished;
      return (await this.store.getRun(this.key(runId))) ?? record;
    }
    return record;
  }

  /** Resolves when a run executing in this process has ended; undefined when it does not execute here. */
  finished(runId: string): Promise<void> | undefined {
    return this.active.get(runId)?.finished;
  }

  /** The run's record; a run executing here answers from memory (the store has the same). */
  async get(runId: string): Promise<RunRecord | undefined> {
    const local = this.active.get(runId);
    if (local) return { ...local.record };
    return this.store.getRun(this.key(runId));
  }

  list(params: Omit<ListRunsParams, 'appName'>): Promise<ListRunsResult> {
    return this.store.listRuns({ ...params, appName: this.appName });
  }

  /**
   * The run's events: the stored ones after `after`, then, while the run goes on, each new one as
   * it happens (partial ones too when the run executes in this process). Ends when the run has
   * finished. No event is yielded twice and none is skipped.
   */
  async *events(runId: string, options: RunEventsOptions = {}): AsyncGenerator<Event, RunRecord, undefined> {
    // A run executing here buffers its partial events only while a tail listens: listen from the
    // first step, before the tail's module has loaded, so no chunk streamed meanwhile is lost.
    const local = this.active.get(runId);
    const hold = () => undefined;
    local?.listeners.add(hold);
    try {
      const { runEvents } = await loadRunTail();
      return yield* runEvents(
        {
          active: this.active,
          store: this.store,
          key: (id) => this.key(id),
          storedEvents: (record) => this.storedEvents(record),
        },
        runId,
        options,
      );
    } finally {
      local?.listeners.delete(hold);
    }
  }

  /**
   * Claims runs that nobody executes — queued for workers, or left by a process that stopped
   * heartbeating — and executes them here, resuming each from its events. Stops with the returned
   * function (runs already started go on).
   */
  startWorker(execute: (record: RunRecord) => void, options: WorkerOptions = {}): RunWorker {
    const interval = options.pollIntervalMs ?? 200;
    const staleAfter = options.staleAfterMs ?? Math.round(1.75 * (this.timing.heartbeatMs ?? 2000));
    const orphanAfter = options.orphanAfterMs ?? DEFAULT_ORPHAN_AFTER_MS;
    const max = options.maxConcurrentRuns ?? 10;
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const tick = async () => {
      timer = undefined;
      try {
        while (!stopped && this.active.size < max) {
          const record = await this.claim(staleAfter, orphanAfter);
          if (!record) break;
          execute(record);
        }
      } catch (error) {
        options.onError?.(error);
      }
      if (!stopped) {
        timer = setTimeout(() => void tick(), interval);
        timer.unref?.();
      }
    };
    void tick();
    return {
      stop: () => {
        stopped = true;
        clearTimeout(timer);
      },
    };
  }

  /** Claims one run for this process (see RunStore.claimRun); undefined when none waits. */
  async claim(staleAfterMs: number, orphanAfterMs?: number): Promise<RunRecord | undefined> {
    if (!this.store.claimRun) return undefined;
    this.listen();
    const now = nowMs();
    return this.store.claimRun({
      appName: this.appName,
      owner: this.instanceId,
      staleBefore: now - staleAfterMs,
      ...(orphanAfterMs === undefined ? {} : { orphanedBefore: now - orphanAfterMs }),
    });
  }

  /** Stops listening for cancel requests. */
  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearInterval(this.poller);
    this.poller = undefined;
  }

  private async storedEvents(record: RunRecord): Promise<Event[]> {
    // Events of the run are newer than its record; a minute of margin covers clocks of other hosts.
    const session = await this.sessions.getSession({
      appName: record.appName,
      userId: record.userId,
      sessionId: record.sessionId,
      after: record.createdAt - 60_000,
    });
    return (session?.events ?? []).filter((e) => e.invocationId === record.invocationId);
  }

  private async unfinishedRuns(userId: string, sessionId: string): Promise<RunRecord[]> {
    const local = this.bySession.get(sessionKeyOf(userId, sessionId));
    // In one process the local table is exact; a shared store also knows other processes' runs.
    if (!this.store.shared) return local ? [...local].map((a) => a.record) : [];
    const { runs } = await this.store.listRuns({
      appName: this.appName,
      userId,
      sessionId,
      status: ['queued', 'running'],
    });
    return runs;
  }

  private activate(record: RunRecord, signal: AbortSignal | undefined, complete: boolean): ActiveRun {
    const controller = new AbortController();
    if (signal?.aborted) controller.abort(signal.reason);
    else signal?.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
    let resolveFinished!: () => void;
    const finished = new Promise<void>((resolve) => {
      resolveFinished = resolve;
    });
    const active: ActiveRun = {
      record,
      controller,
      events: [],
      usageEvents: [],
      complete,
      listeners: new Set(),
      done: false,
      finished,
      resolveFinished,
    };
    this.active.set(record.id, active);
    const key = sessionKeyOf(record.userId, record.sessionId);
    let set = this.bySession.get(key);
    if (!set) {
      set = new Set();
      this.bySession.set(key, set);
    }
    set.add(active);
    this.startPolling();
    return active;
  }

  /** While runs execute here on a shared store without notifications: heartbeat and cancel checks. */
  private startPolling(): void {
    if (this.poller || !this.store.shared || !this.store.pollRuns) return;
    const every = this.timing.cancelPollMs ?? 200;
    this.poller = setInterval(() => void this.poll(), every);
    this.poller.unref();
  }

  private async poll(): Promise<void> {
    if (this.polling || !this.store.pollRuns) return;
    if (this.active.size === 0) {
      clearInterval(this.poller);
      this.poller = undefined;
      return;
    }
    this.polling = true;
    try {
      const now = Date.now();
      const heartbeat = now - this.lastHeartbeat >= (this.timing.heartbeatMs ?? 2000);
      if (heartbeat) this.lastHeartbeat = now;
      const cancelled = await this.store.pollRuns(this.appName, [...this.active.keys()], { heartbeat });
      for (const id of cancelled) this.cancelHere(id);
      if (heartbeat) for (const active of this.active.values()) active.record.heartbeatAt = now;
    } catch {
      // The next tick tries again; a database that stays down fails the runs themselves.
    } finally {
      this.polling = false;
    }
  }

  /** Buffers the event for the tails attached now, and for later ones when the buffer is complete. */
  private publish(active: ActiveRun, event: Event): void {
    active.events.push(event);
    for (const listener of active.listeners) listener();
  }

  private async finish(active: ActiveRun, status: RunStatus, error: RunRecord['error']): Promise<void> {
    const { record } = active;
    // Pricing loads with the first run that reported token usage.
    const usage =
      active.usageEvents.length > 0
        ? await loadRunUsage().then(
            (m) =>
              m.runUsageOf(active.usageEvents, {
                ...(this.prices ? { prices: this.prices } : {}),
                ...(this.modelOf ? { modelOf: this.modelOf } : {}),
              }),
            () => undefined,
          )
        : undefined;
    const patch = {
      status,
      endedAt: nowMs(),
      ...(error ? { error } : {}),
      ...(usage && usage.modelCalls > 0 ? { usage } : {}),
    };
    try {
      await this.store.updateRun(this.key(record.id), patch);
    } catch {
      // The record is best-effort once the events are committed; the log stays the truth.
    } finally {
      Object.assign(active.record, patch);
      active.done = true;
      this.active.delete(record.id);
      const key = sessionKeyOf(record.userId, record.sessionId);
      const set = this.bySession.get(key);
      set?.delete(active);
      if (set?.size === 0) this.bySession.delete(key);
      for (const listener of active.listeners) listener();
      active.resolveFinished();
    }
  }

  private listen(): void {
    if (this.unsubscribe || !this.store.onCancelRequested) return;
    this.unsubscribe = this.store.onCancelRequested((key) => {
      if (key.appName === this.appName) this.cancelHere(key.runId);
    });
  }

  /** A cancel request reached this process: stops the run if it executes here. */
  private cancelHere(runId: string): void {
    const local = this.active.get(runId);
    if (!local) return;
    local.record.cancelRequested = true;
    local.controller.abort(new CancelledError('The run was cancelled'));
  }

  private key(runId: string): RunKey {
    return { appName: this.appName, runId };
  }
}

let runTail: Promise<typeof import('./run-tail.js')> | undefined;
/** Tails of a run's events (`events`), imported once on first use. */
const loadRunTail = () => (runTail ??= import('./run-tail.js'));

let runUsage: Promise<typeof import('./run-usage.js')> | undefined;
const loadRunUsage = () => (runUsage ??= import('./run-usage.js'));
