import { agentKindOf } from '../agents/agent-kind.js';
import { asArray, BaseAgent } from '../agents/base-agent.js';
import type { CallbackContext } from '../agents/callback-context.js';
import { InvocationContext, type InvocationShared } from '../agents/invocation-context.js';
import type { LiveRequestQueue } from '../agents/live-request-queue.js';
import { LlmAgent } from '../agents/llm-agent.js';
import type { RunConfig } from '../agents/run-config.js';
import type { ArtifactService } from '../artifacts/artifact-service.js';
import type { CredentialService } from '../auth/credential-service.js';
import { InMemoryCredentialService } from '../auth/in-memory-credential-service.js';
import {
  AdkError,
  CancelledError,
  ConcurrentInvocationError,
  describeError,
  errorCodeOf,
  isAdkError,
  NotFoundError,
} from '../errors/errors.js';
import type { Content } from '../events/content.js';
import {
  createEvent,
  type Event,
  eventFunctionCalls,
  eventFunctionResponses,
  isFinalResponse,
} from '../events/event.js';
import type { ContextCompressor } from '../flow/compression.js';
import { answersCredentialRequest, loadAuthAnswers } from '../flow/credential-requests.js';
import { PauseSigner, type PauseSigningOptions } from '../flow/pause-signing.js';
import { GUARDRAILS_METADATA_KEY, isGuardrailTripped, trippedEventFields } from '../guardrails/guardrail.js';
import { hasInputGuardrails } from '../guardrails/guardrails-of.js';
import { checkInput, loadGuardrailChecks } from '../guardrails/load.js';
import type { MemoryWorkerConfig } from '../memory/job-host.js';
import { wakeMemoryWorkers } from '../memory/job-wake.js';
import { hasMemoryJobs } from '../memory/jobs.js';
import type { MemoryService } from '../memory/memory-service.js';
import type { RunnerMemoryJobs } from '../memory/runner-memory-jobs.js';
import { defaultModelRegistry, type ModelRegistry } from '../models/registry.js';
import type { Plugin } from '../plugins/plugin.js';
import { PluginManager } from '../plugins/plugin-manager.js';
import { InMemoryRunStore } from '../runs/in-memory-run-store.js';
import {
  type RunEventsOptions,
  RunManager,
  type RunTiming,
  type RunTracker,
  type RunWorker,
  type WorkerOptions,
} from '../runs/run-manager.js';
import type {
  ListRunsParams,
  ListRunsResult,
  MultitaskStrategy,
  RunRecord,
  RunStore,
} from '../runs/run-store.js';
import type { RunLock, Session, SessionService } from '../sessions/session.js';
import { TEMP_PREFIX } from '../sessions/state.js';
import { visibleEvents } from '../sessions/visible-events.js';
import type { PriceTable } from '../telemetry/pricing.js';
import { endSpan, loadTelemetry, NO_TRACE, startSpan } from '../telemetry/tracing.js';
import { type BaseToolset, isToolset } from '../tools/toolset.js';
import { newId } from '../utils/ids.js';
import { loadZod } from '../utils/zod.js';
import { isWorkflowAgent } from '../workflow/brand.js';
import type { Workflow } from '../workflow/workflow.js';
import type { BackgroundHost } from './background.js';
import { checkRunConfiguration } from './preflight.js';
import type { RewindParams, RunnerForkParams, TimeTravelHost } from './time-travel.js';

export interface RunnerOptions {
  appName: string;
  agent: BaseAgent;
  sessionService: SessionService;
  artifactService?: ArtifactService;
  memoryService?: MemoryService;
  /** Where tool credentials (OAuth2 tokens, API keys) are kept (default: in memory). */
  credentialService?: CredentialService;
  plugins?: Plugin[] | PluginManager;
  /** Resolves model names (default: the process-wide registry). */
  models?: ModelRegistry;
  /** Create the session on first use instead of failing with NotFoundError. */
  autoCreateSession?: boolean;
  /** A second run on a session that has one in progress: wait for it (default) or fail at once. */
  concurrentRuns?: 'queue' | 'reject';
  /** Context compression for every LlmAgent that has none of its own. */
  contextCompression?: ContextCompressor | ContextCompressor[];
  /** Where run records live (default: in memory; `@adk/session-sql` keeps them beside the sessions). */
  runStore?: RunStore;
  /** This process's name in run records (default: a new id per Runner). */
  instanceId?: string;
  /**
   * A run started on a session that has one queued or running (default: `enqueue`, or `reject`
   * with `concurrentRuns: 'reject'`); a run's own `multitaskStrategy` wins.
   */
  multitaskStrategy?: MultitaskStrategy;
  /** How often runs on a shared run store check for cancel requests and record a heartbeat. */
  runTiming?: RunTiming;
  /**
   * Prices of the model calls counted in each run record's `usage` (tokens and USD). Default:
   * `priceTable()` (`DEFAULT_MODEL_PRICES`); pass `priceTable(overrides)` for your own.
   */
  prices?: PriceTable;
  /**
   * Where `startRun` runs execute: in this process (`local`, default), or by whichever worker
   * claims them from the run store (`queue`: see `startWorker`, `adk worker`).
   */
  execution?: 'local' | 'queue';
  /**
   * Sign every paused call (confirmations, credential requests, workflow questions, long-running
   * calls) and refuse answers to calls without a valid signature (docs/decisions/0031-signed-pauses.md).
   */
  pauseSigning?: PauseSigningOptions | PauseSigner;
  /**
   * The memory job worker this runner starts in its process when `memoryService` has a job queue
   * (on its first enqueued turn; `close()` stops it): `false` when another process or host runs the
   * jobs (`@adk/server` runs one per process beside its run worker), or handlers and timings.
   */
  memoryWorker?: boolean | MemoryWorkerConfig;
}

export interface RunParams {
  userId: string;
  sessionId: string;
  /** The user's message; omitted to continue without one (e.g. after a state change). */
  newMessage?: Content;
  /** State changes committed with the user's message. */
  stateDelta?: Record<string, unknown>;
  runConfig?: RunConfig;
  signal?: AbortSignal;
  invocationId?: string;
  /** Double-texting: what to do when the session already has a run (see RunnerOptions). */
  multitaskStrategy?: MultitaskStrategy;
  /**
   * Continue the invocation `invocationId` from its events in the session (crash recovery): the
   * message is not committed again, finished model and tool steps are not repeated, and calls it
   * started without an answer are re-run only for idempotent tools.
   */
  recover?: boolean;
}

export interface RunLiveParams {
  userId: string;
  sessionId: string;
  /** The client's side of the session: content, realtime media, activity signals, close. */
  liveRequestQueue: LiveRequestQueue;
  /** Live settings (modalities, speech, transcription, VAD, resumption, reconnects). */
  runConfig?: RunConfig;
  /** Ends the session cleanly (no error event): the connection closes and running tools abort. */
  signal?: AbortSignal;
  /** @deprecated The same as `signal` (the name every other API uses); `signal` wins when both are given. */
  abortSignal?: AbortSignal;
  /** Resume a server-side session (e.g. `latestResumptionHandle(session)`); no history is sent. */
  resumptionHandle?: string;
  invocationId?: string;
}

interface ExclusiveParams {
  userId: string;
  sessionId: string;
  signal?: AbortSignal | undefined;
}

/**
 * A run started to go on in the background (`Runner.startRun`). Its `signal` is for the host (a
 * server shutting down), not a client: a background run outlives the request that started it.
 */
export type StartRunParams = RunParams;

/**
 * Turns a user message into a stream of events (docs/architecture.md §4.1). Each event is yielded as it is produced;
 * every non-partial event is committed to the session service before it is yielded.
 */
export class Runner {
  readonly appName: string;
  readonly agent: BaseAgent;
  readonly sessionService: SessionService;
  readonly artifactService: ArtifactService | undefined;
  readonly memoryService: MemoryService | undefined;
  /** Signs paused calls and checks answers, when the runner was given keys. */
  readonly pauseSigner: PauseSigner | undefined;
  readonly credentialService: CredentialService;
  readonly pluginManager: PluginManager;
  readonly models: ModelRegistry;
  private readonly autoCreateSession: boolean;
  private readonly concurrentRuns: 'queue' | 'reject';
  private readonly contextCompression: ContextCompressor[] | undefined;
  /** Whether the agent tree holds a graph Workflow (else no run pays for workflow resumes). */
  private readonly hasWorkflow: boolean;
  private readonly running = new Map<string, Promise<void>>();
  /** Run records: status, cancel from anywhere, double-texting, tails. */
  readonly runs: RunManager;
  private readonly execution: 'local' | 'queue';
  private readonly memoryWorkerConfig: MemoryWorkerConfig | undefined;
  /** This runner's memory job worker, its code loaded on first use. */
  private memoryJobs: Promise<RunnerMemoryJobs> | undefined;
  private memoryWorkerClosed = false;

  constructor(options: RunnerOptions) {
    this.appName = options.appName;
    this.agent = options.agent;
    this.sessionService = options.sessionService;
    this.artifactService = options.artifactService;
    this.memoryService = options.memoryService;
    this.pauseSigner =
      options.pauseSigning === undefined
        ? undefined
        : options.pauseSigning instanceof PauseSigner
          ? options.pauseSigning
          : new PauseSigner(options.pauseSigning);
    this.credentialService = options.credentialService ?? new InMemoryCredentialService();
    this.pluginManager =
      options.plugins instanceof PluginManager ? options.plugins : new PluginManager(options.plugins ?? []);
    this.models = options.models ?? defaultModelRegistry;
    this.autoCreateSession = options.autoCreateSession ?? false;
    this.concurrentRuns = options.concurrentRuns ?? 'queue';
    this.hasWorkflow = false;
    for (const a of this.agent.descendantsAndSelf()) if (isWorkflowAgent(a)) this.hasWorkflow = true;
    this.contextCompression =
      options.contextCompression === undefined ? undefined : asArray(options.contextCompression);
    this.execution = options.execution ?? 'local';
    this.memoryWorkerConfig =
      options.memoryWorker === false
        ? undefined
        : options.memoryWorker === true || options.memoryWorker === undefined
          ? {}
          : options.memoryWorker;
    this.runs = new RunManager(
      this.appName,
      options.runStore ?? new InMemoryRunStore(),
      this.sessionService,
      options.instanceId ?? `runner-${newId()}`,
      options.multitaskStrategy ?? (this.concurrentRuns === 'reject' ? 'reject' : 'enqueue'),
      options.runTiming,
    );
    this.runs.keepsMessage = () => !hasInputGuardrails(this.pluginManager, this.agent);
    this.runs.prices = options.prices;
    this.runs.modelOf = (event) => {
      const author = this.agent.findAgent(event.author);
      const model = author instanceof LlmAgent ? author.canonicalModel : undefined;
      return typeof model === 'string' ? model : model?.model;
    };
    if (this.hasWorkflow) {
      // The run record needs the invocation id before the run starts: an answer to a paused
      // workflow continues that workflow's invocation (docs/decisions/0012-workflow-resume.md).
      this.runs.invocationIdFor = async (params) => {
        if (!params.newMessage?.parts.some((p) => p.functionResponse)) return undefined;
        const key = { appName: this.appName, userId: params.userId, sessionId: params.sessionId };
        const session = await this.sessionService.getSession(key);
        return session && this.pausedWorkflowInvocation(session, params.newMessage);
      };
    }
  }

  /**
   * Runs one invocation as a run (it gets a run record, see `getRun`). Iterate the result to drive
   * it; stopping early ends it cleanly and cancels it.
   */
  run(params: RunParams): AsyncGenerator<Event, void, undefined> {
    return this.checked(() =>
      this.exclusive(params, (p, tracker) => this.runExclusive(p as RunParams, tracker), undefined, true),
    );
  }

  /** @google/adk's name for {@link Runner.run}. */
  runAsync(params: RunParams): AsyncGenerator<Event, void, undefined> {
    return this.run(params);
  }

  /**
   * Throws a configuration error (an unresolvable model name, a provider that is not registered, a
   * missing API key) before anything is recorded; `run`, `startRun` and `runLive` call it first.
   */
  checkConfiguration(): void {
    checkRunConfiguration(this.agent, this.models);
  }

  /** The run's first step is the configuration check: it throws, not an error event. */
  private async *checked(
    start: () => AsyncGenerator<Event, void, undefined>,
  ): AsyncGenerator<Event, void, undefined> {
    this.checkConfiguration();
    yield* start();
  }

  /**
   * Starts a run that goes on without the caller (a background run) and resolves once its record
   * exists (status `queued`). Follow it with `runEvents`, stop it with `cancelRun`.
   */
  async startRun(params: StartRunParams): Promise<RunRecord> {
    if (this.execution === 'local' && !params.recover) this.checkConfiguration();
    const { startBackgroundRun } = await loadBackground();
    return startBackgroundRun(this.backgroundHost(), params);
  }

  /**
   * Executes runs nobody executes — queued with `execution: 'queue'`, or left `running`/`queued`
   * by a process that stopped heartbeating — claiming them from the run store (on Postgres, several
   * workers claim without overlap). Each resumes from its events: finished model calls and tool
   * results are not repeated; a call that started without an answer runs again only for an
   * idempotent tool. `stop()` stops claiming (runs already started go on).
   */
  startWorker(options?: WorkerOptions): RunWorker {
    return this.runs.startWorker((record) => void this.resumeRun(record), options);
  }

  /**
   * Starts this process's memory job worker now (it otherwise starts on the first enqueued turn),
   * e.g. to work off jobs a stopped process left; a no-op without a job queue, when running, or
   * with `memoryWorker: false`. `close()` stops it for good.
   */
  startMemoryWorker(): void {
    if (this.memoryWorkerClosed || !this.memoryWorkerConfig) return;
    this.runnerMemoryJobs()?.then(
      (jobs) => jobs.start(),
      () => undefined,
    );
  }

  /**
   * Runs the memory jobs waiting in the queue (this runner's kinds: `'index'` and the configured
   * handlers) until none is pending, retries included: the deterministic hook for tests and scripts
   * that end right after a turn. Works with `memoryWorker: false` too.
   */
  async flushMemory(options?: { signal?: AbortSignal; userId?: string }): Promise<void> {
    await (await this.runnerMemoryJobs())?.flush(this.appName, options);
  }

  private runnerMemoryJobs(): Promise<RunnerMemoryJobs> | undefined {
    const memory = this.memoryService;
    if (!hasMemoryJobs(memory)) return undefined;
    this.memoryJobs ??= import('../memory/runner-memory-jobs.js').then(
      (host) =>
        new host.RunnerMemoryJobs(memory, this.sessionService, this.memoryWorkerConfig ?? {}, this.agent),
    );
    return this.memoryJobs;
  }

  /**
   * Claims and resumes, once, every run left unfinished by a process that stopped (their owner's
   * heartbeat older than `staleAfterMs`, default 0: any other owner), e.g. at start-up of a
   * single-process store (PGlite, SQLite). Resolves with the records it took over.
   */
  async recoverRuns(options: { staleAfterMs?: number } = {}): Promise<RunRecord[]> {
    const taken: RunRecord[] = [];
    for (
      let record = await this.runs.claim(options.staleAfterMs ?? 0);
      record;
      record = await this.runs.claim(options.staleAfterMs ?? 0)
    ) {
      taken.push(record);
      void this.resumeRun(record);
    }
    return taken;
  }

  /**
   * Executes a run this process claimed (see `RunStore.claimRun`) in the background, continuing its
   * invocation from the log; resolves when it has ended (its record says how).
   */
  async resumeRun(record: RunRecord, options: { signal?: AbortSignal } = {}): Promise<void> {
    const { resumeBackgroundRun } = await loadBackground();
    return resumeBackgroundRun(this.backgroundHost(), record, options);
  }

  private backgroundHost(): BackgroundHost {
    return {
      appName: this.appName,
      sessionService: this.sessionService,
      runs: this.runs,
      execution: this.execution,
      pauseSigner: this.pauseSigner,
      runBody: this.runBody,
      supersededAt,
      supersededMessage: SUPERSEDED_MESSAGE,
    };
  }

  /** A run of this app by id (undefined when unknown). */
  getRun(runId: string): Promise<RunRecord | undefined> {
    return this.runs.get(runId);
  }

  /** Cancels a run wherever it executes; resolves with its record once it has stopped here (undefined: unknown). */
  cancelRun(runId: string): Promise<RunRecord | undefined> {
    return this.runs.cancel(runId);
  }

  /** Runs of this app, newest first, by user, session and status. */
  listRuns(params: Omit<ListRunsParams, 'appName'> = {}): Promise<ListRunsResult> {
    return this.runs.list(params);
  }

  /**
   * A run's events: stored ones (after `options.after`), then live ones until the run has finished;
   * the generator's return value is the run's final record.
   */
  runEvents(runId: string, options?: RunEventsOptions): AsyncGenerator<Event, RunRecord, undefined> {
    return this.runs.events(runId, options);
  }

  private readonly runBody = (
    params: RunParams,
    started: () => Promise<void>,
    end: RunTracker['end'],
    tracker?: RunTracker,
  ) =>
    this.exclusive(
      params,
      // The caller observes the events; the run keeps its record's input up to date.
      () =>
        this.runExclusive(params, tracker && { record: tracker.record, replaceInput: tracker.replaceInput }),
      started,
      false,
      end,
    );

  /**
   * Rewinds a session to before an invocation by appending one event (docs/architecture.md §5.5):
   * that invocation and everything after it leave the history every reader sees; session state and
   * artifacts return to what they were. Refused while the session has a run queued or running
   * (ConcurrentInvocationError) unless `cancelRunning`.
   */
  async rewind(params: RewindParams): Promise<Event> {
    const { rewindSession } = await loadTimeTravel();
    return rewindSession(this.timeTravelHost(), params);
  }

  /**
   * Forks a session at an event (`atEventId`, included) or before an invocation into a new session
   * with that part of the log, its state and artifact versions, and `forkedFrom`; the original is
   * untouched (docs/architecture.md §5.5).
   */
  async forkSession(params: RunnerForkParams): Promise<Session> {
    const { forkRunnerSession } = await loadTimeTravel();
    return forkRunnerSession(this.timeTravelHost(), params);
  }

  private timeTravelHost(): TimeTravelHost {
    return {
      appName: this.appName,
      sessionService: this.sessionService,
      artifactService: this.artifactService,
      listRuns: (p) => this.listRuns(p),
      cancelRun: (id) => this.cancelRun(id),
      busyHere: (userId, sessionId) => this.running.has(`${userId}\u0000${sessionId}`),
    };
  }

  /**
   * Runs a live (bidirectional) session: the client's `liveRequestQueue` is forwarded to the
   * agent's model connection and every response is yielded as an event as it arrives. It ends when
   * the queue is closed, `signal` aborts, the caller stops iterating, or the model ends the
   * session. Events that are partial or carry inline audio/video are yielded but not stored; user
   * text, finished transcriptions, tool calls and responses, resumption handles and errors are
   * committed before they are yielded (docs/architecture.md §4.6).
   */
  runLive(params: RunLiveParams): AsyncGenerator<Event, void, undefined> {
    const common = {
      userId: params.userId,
      sessionId: params.sessionId,
      signal: params.signal ?? params.abortSignal,
    };
    return this.checked(() => this.exclusive(common, () => this.runLiveExclusive(params)));
  }

  /** The live session's implementation is loaded on the first `runLive` (an app without live sessions never loads it). */
  private async *runLiveExclusive(params: RunLiveParams): AsyncGenerator<Event, void, undefined> {
    const { runLiveSession } = await loadLiveRun();
    yield* runLiveSession(
      {
        appName: this.appName,
        agent: this.agent,
        sessionService: this.sessionService,
        artifactService: this.artifactService,
        memoryService: this.memoryService,
        credentialService: this.credentialService,
        pluginManager: this.pluginManager,
        models: this.models,
        contextCompression: this.contextCompression,
        runEnded: RUN_ENDED,
        loadSession: (p) => this.loadSession(p),
        findAgentToRun: (session, message) => this.findAgentToRun(session, message),
        branchOf,
      },
      params,
    );
  }

  /**
   * One run at a time per session: queued behind (or refused next to) a run in progress; `started`
   * is told once the run holds the session (after the in-process queue and the store's run lock).
   */
  private async *exclusive(
    given: ExclusiveParams,
    body: (
      params: ExclusiveParams,
      tracker: RunTracker | undefined,
    ) => AsyncGenerator<Event, void, undefined>,
    started?: () => Promise<void>,
    track = false,
    ended?: RunTracker['end'],
  ): AsyncGenerator<Event, void, undefined> {
    // `run()` keeps its run record here, in the one generator between its events and the caller.
    const tracker = track ? await this.runs.begin(given as RunParams) : undefined;
    const params: ExclusiveParams = tracker ? tracker.params : given;
    // The record is finished while the run still holds its session (see RunBody); calls after the
    // first are no-ops.
    const end = tracker?.end ?? ended;
    let completed = false;
    let thrown: unknown;
    try {
      const key = `${params.userId}\u0000${params.sessionId}`;
      const previous = this.running.get(key);
      if (previous && this.concurrentRuns === 'reject') {
        throw new ConcurrentInvocationError(
          `Session ${params.sessionId} already has a run in progress; wait for it to finish or use concurrentRuns: 'queue'`,
        );
      }
      let release!: () => void;
      const mine = new Promise<void>((resolve) => {
        release = resolve;
      });
      const chained = previous ? previous.then(() => mine) : mine;
      this.running.set(key, chained);
      let lock: RunLock | undefined;
      try {
        if (previous) await waitOrAbort(previous, params.signal);
        lock = await this.acquireRunLock(params);
        await (tracker?.started ?? started)?.();
        yield* body(params, tracker);
        completed = true;
      } catch (error) {
        thrown = error;
        throw error;
      } finally {
        await end?.(completed, thrown);
        await lock?.release().catch(() => undefined);
        release();
        if (this.running.get(key) === chained) this.running.delete(key);
      }
    } catch (error) {
      thrown = error;
      throw error;
    } finally {
      await end?.(completed, thrown);
    }
  }

  /** The store's cross-process lock, when it has one (the in-process queue covers the rest). */
  private async acquireRunLock(params: ExclusiveParams): Promise<RunLock | undefined> {
    if (!this.sessionService.acquireRunLock) return undefined;
    const wait = this.concurrentRuns === 'queue';
    const key = { appName: this.appName, userId: params.userId, sessionId: params.sessionId };
    const lock = await this.sessionService.acquireRunLock(key, {
      wait,
      ...(params.signal ? { signal: params.signal } : {}),
    });
    if (!lock && !wait) {
      throw new ConcurrentInvocationError(
        `Session ${params.sessionId} has a run in progress in another process; wait for it to finish or use concurrentRuns: 'queue'`,
      );
    }
    return lock;
  }

  private async loadSession(params: ExclusiveParams): Promise<Session> {
    const key = { appName: this.appName, userId: params.userId, sessionId: params.sessionId };
    const session = await this.sessionService.getSession(key);
    if (session) return session;
    if (!this.autoCreateSession) {
      throw new NotFoundError(
        `Session ${params.sessionId} not found for app ${this.appName}, user ${params.userId} (create it first or set autoCreateSession)`,
      );
    }
    return this.sessionService.createSession(key);
  }

  private async *runExclusive(
    params: RunParams,
    tracker?: Pick<RunTracker, 'record' | 'replaceInput'> & Partial<Pick<RunTracker, 'observe'>>,
  ): AsyncGenerator<Event, void, undefined> {
    if (!optionalModulesLoaded) {
      await Promise.all([loadTelemetry(), loadZod()]);
      optionalModulesLoaded = true;
    }
    if (!this.pluginManager.isEmpty) await this.pluginManager.init();
    const session = await this.loadSession(params);
    // Answers to paused calls must answer calls this server signed (refused before anything is
    // committed), queued and recovered runs included: only a message the log already holds (a
    // recovered invocation's) was checked before.
    // Crash recovery: the invocation's events so far are in the log; it goes on from them.
    const recovered =
      params.recover && params.invocationId ? recoveryPoint(session.events, params.invocationId) : undefined;
    if (this.pauseSigner && params.newMessage && !recovered)
      await this.pauseSigner.verifyAnswers(
        { appName: this.appName, userId: params.userId, sessionId: session.id },
        session.events,
        params.newMessage,
      );
    // Checked again now that the run holds its session: a later run may have taken the session
    // between the claim and here. Nothing is committed; the run ends failed (INTERRUPTED).
    if (params.recover && params.invocationId && supersededAt(session.events, params.invocationId))
      throw new AdkError('INTERRUPTED', SUPERSEDED_MESSAGE);
    // The run's own signal: the caller's, and aborted when the run ends in any way (including a
    // caller that stops iterating), so no model call or tool keeps running behind it.
    const controller = new AbortController();
    const onAbort = () => controller.abort(params.signal?.reason);
    if (params.signal?.aborted) onAbort();
    else params.signal?.addEventListener('abort', onAbort, { once: true });
    const signal = controller.signal;
    let afterRunDone = false;
    // Answers to a paused workflow continue its invocation: the workflow re-walks its graph from
    // that invocation's events (docs/decisions/0012-workflow-resume.md). A run's record has chosen
    // it already (RunManager.invocationIdFor).
    const invocationId =
      params.invocationId ??
      (this.hasWorkflow ? this.pausedWorkflowInvocation(session, params.newMessage) : undefined) ??
      `e-${newId()}`;
    const trace = startSpan('invocation', NO_TRACE, () => ({
      'gen_ai.conversation.id': session.id,
      'gen_ai.agent.name': this.agent.name,
      'adk.app_name': this.appName,
      'adk.user_id': params.userId,
      'adk.invocation_id': invocationId,
    }));
    const shared: InvocationShared = { llmCalls: 0, ended: false, tempState: {} };
    if (tracker) shared.observe = tracker.observe;
    // Credentials a client supplies stay in memory for this invocation: neither plugins nor the
    // committed event see them.
    const taken =
      params.newMessage && !recovered
        ? answersCredentialRequest(params.newMessage)
          ? (await loadAuthAnswers()).takeAuthAnswers(params.newMessage)
          : { message: params.newMessage, answers: undefined }
        : undefined;
    if (taken?.answers && taken.answers.size > 0) shared.authAnswers = taken.answers;
    if (recovered) shared.recovering = true;
    let ctx = new InvocationContext({
      invocationId,
      appName: this.appName,
      userId: params.userId,
      session,
      sessionService: this.sessionService,
      artifactService: this.artifactService,
      memoryService: this.memoryService,
      credentialService: this.credentialService,
      pluginManager: this.pluginManager,
      models: this.models,
      runConfig: params.runConfig ?? {},
      signal,
      agent: this.agent,
      rootAgent: this.agent,
      userContent: recovered ? recovered.userContent : taken?.message,
      shared,
      trace,
      contextCompression: this.contextCompression,
    });
    let failure: unknown;
    try {
      let message = taken?.message;
      if (message) {
        if (!this.pluginManager.isEmpty) {
          message = (await this.pluginManager.onUserMessage({ context: ctx, message })) ?? message;
          ctx = new InvocationContext({ ...ctx, userContent: message });
        }
        // Input guardrails: a rewrite replaces the message before it is committed; a tripwire
        // commits nothing of it (docs/decisions/0030-guardrails.md).
        let checked: Awaited<ReturnType<typeof checkInput>>;
        try {
          checked = await checkInput(ctx, this.agent, message);
        } catch (error) {
          // The run's record must not keep what the guardrail stopped.
          if (isGuardrailTripped(error) && tracker?.replaceInput) {
            const { newMessage: _withheld, ...rest } = tracker.record.input;
            await tracker.replaceInput(rest);
          }
          throw error;
        }
        if (checked && checked.message !== message) {
          message = checked.message;
          ctx = new InvocationContext({ ...ctx, userContent: message });
        }
        // The record keeps the checked message until the log has it, so a run that stops before
        // (a crash while a check beside the model still runs) is recovered with it.
        if (checked && tracker?.replaceInput && tracker.record.input.newMessage !== message) {
          const { messageWithheld: _checked, ...rest } = tracker.record.input;
          await tracker.replaceInput({ ...rest, newMessage: message });
        }
        const userEvent = createEvent({
          invocationId,
          author: 'user',
          content: message,
          actions: { stateDelta: { ...params.stateDelta, ...checked?.context.actions.stateDelta } },
          ...(checked && checked.records.length > 0
            ? { customMetadata: { [GUARDRAILS_METADATA_KEY]: checked.records } }
            : {}),
        });
        if (checked && checked.parallel.length > 0) {
          // Checks beside the first model call: the model sees the message at once, the session
          // stores it once they pass, and never when one trips (docs/decisions/0030-guardrails.md).
          shared.inputGate = (await loadGuardrailChecks()).startInputGate(
            checked.parallel,
            message,
            checked.context,
          );
          yield await this.holdInput(ctx, userEvent, checked.context);
        } else yield this.commit(ctx, userEvent);
      } else if (!recovered && params.stateDelta && Object.keys(params.stateDelta).length > 0) {
        yield await this.commit(
          ctx,
          createEvent({ invocationId, author: 'user', actions: { stateDelta: params.stateDelta } }),
        );
      }

      const halt = recovered ? undefined : await this.pluginManager.beforeRun({ context: ctx });
      if (recovered?.finished) {
        // It had answered before its process stopped: nothing is run again.
      } else if (halt) {
        yield await this.commit(ctx, createEvent({ invocationId, author: this.agent.name, content: halt }));
      } else {
        const agent = resumeThroughWorkflows(this.findAgentToRun(session, message), shared, this.hasWorkflow);
        for await (const event of agent.run(ctx.with({ agent, branch: branchOf(agent) }))) {
          // `yield` awaits the commit (and throws here if it fails): no second await.
          yield this.commit(ctx, event);
          if (signal.aborted) break;
        }
        if (signal.aborted) throw new CancelledError('The run was cancelled');
        await this.settleInput(ctx);
      }
      // Memory's post-turn work: one outbox enqueue, nothing else on the response path.
      if (hasMemoryJobs(this.memoryService)) {
        const { enqueueAgentTurnJobs } = await import('../memory/turn-kinds.js');
        await enqueueAgentTurnJobs(this.memoryService.jobs, this.agent, {
          appName: this.appName,
          userId: params.userId,
          sessionId: session.id,
          events: ctx.session.events.filter((e) => e.invocationId === invocationId),
        });
        if (this.memoryWorkerConfig) this.startMemoryWorker();
        wakeMemoryWorkers(this.memoryService.jobs);
      }
      afterRunDone = true;
      await this.pluginManager.afterRun({ context: ctx });
    } catch (caught) {
      let error = caught;
      // A message held for checks beside the model: stored before the error event when they pass
      // (a cancelled run does not wait for them: the message is dropped, never stored unchecked).
      if (shared.inputGate && !isGuardrailTripped(error) && !signal.aborted) {
        try {
          await this.settleInput(ctx);
        } catch (settled) {
          if (isGuardrailTripped(settled)) error = settled;
        }
      }
      this.dropHeldInput(ctx);
      failure = error;
      shared.inputGate = undefined;
      const tripped = isGuardrailTripped(error);
      // The run's record must not keep a message a check beside the model stopped.
      if (tripped && tracker?.replaceInput && tracker.record.input.newMessage) {
        const { newMessage: _withheld, ...rest } = tracker.record.input;
        await tracker.replaceInput(rest).catch(() => undefined);
      }
      const cancelled = !tripped && (signal.aborted || isAdkError(error, 'CANCELLED'));
      if (!this.pluginManager.isEmpty) await this.pluginManager.onRunError({ context: ctx, error });
      const event = createEvent({
        invocationId,
        author: ctx.agent.name,
        errorCode: cancelled ? 'CANCELLED' : errorCodeOf(error),
        errorMessage: cancelled ? 'The run was cancelled' : describeError(error),
        ...(cancelled ? { interrupted: true } : {}),
        ...(isGuardrailTripped(error) ? trippedEventFields(error) : {}),
      });
      // An error event is best-effort: if the store itself failed, still tell the caller.
      try {
        yield await this.commit(ctx, event);
      } catch {
        ctx.shared.observe?.(event);
        yield event;
      }
    } finally {
      params.signal?.removeEventListener('abort', onAbort);
      controller.abort(RUN_ENDED);
      if (!afterRunDone) {
        // After an error or an early stop, plugins still get to release per-run resources.
        await this.pluginManager.afterRun({ context: ctx }).catch(() => undefined);
      }
      endSpan(trace, failure);
    }
  }

  /**
   * The user's message while input guardrails run beside the first model call: onEvent plugins,
   * then in the session copy the agents read (the model's history) but not in the store, until
   * `settleInput` stores it (they passed) or drops it (one tripped).
   */
  private async holdInput(ctx: InvocationContext, event: Event, context: CallbackContext): Promise<Event> {
    const replaced = this.pluginManager.isEmpty
      ? undefined
      : await this.pluginManager.onEvent({ context: ctx, event });
    const held = replaced ?? event;
    const delta = held.actions.stateDelta;
    for (const k in delta) if (k.startsWith(TEMP_PREFIX)) ctx.shared.tempState[k] = delta[k];
    heldInputs.set(ctx.shared, { event: held, context });
    // A new array: readers that cached the old one (visibleEvents) see the change.
    ctx.session.events = [...ctx.session.events, held];
    return held;
  }

  /** Waits for the checks beside the model: stores the held message when they pass, throws the tripwire. */
  private async settleInput(ctx: InvocationContext): Promise<void> {
    const gate = ctx.shared.inputGate;
    if (!gate) return;
    const tripped = await gate.done;
    if (ctx.shared.inputGate === gate) ctx.shared.inputGate = undefined;
    if (tripped) throw tripped;
    const held = this.dropHeldInput(ctx);
    if (!held) return;
    // State the parallel checks recorded is committed with the message.
    const delta = held.context.actions.stateDelta;
    const stored: Event =
      Object.keys(delta).length === 0
        ? held.event
        : {
            ...held.event,
            actions: { ...held.event.actions, stateDelta: { ...held.event.actions.stateDelta, ...delta } },
          };
    await this.sessionService.appendEvent(ctx.session, stored);
    ctx.shared.observe?.(stored);
  }

  /** Takes the held message out of the session copy (it was never stored). */
  private dropHeldInput(ctx: InvocationContext): HeldInput | undefined {
    const held = heldInputs.get(ctx.shared);
    if (!held) return undefined;
    heldInputs.delete(ctx.shared);
    ctx.session.events = ctx.session.events.filter((e) => e !== held.event);
    return held;
  }

  /** onEvent plugins, then commit (non-partial), keeping `temp:` keys for the rest of the invocation. */
  private async commit(ctx: InvocationContext, event: Event): Promise<Event> {
    // Nothing is committed past input guardrails that still run beside the model call; the
    // message they check is stored first once they pass.
    if (ctx.shared.inputGate && !event.partial) await this.settleInput(ctx);
    const replaced = this.pluginManager.isEmpty
      ? undefined
      : await this.pluginManager.onEvent({ context: ctx, event });
    let final = replaced ?? event;
    if (final.partial) {
      ctx.shared.observe?.(final);
      return final;
    }
    if (this.pauseSigner && final.longRunningToolIds?.length)
      final = await this.pauseSigner.signEvent(
        { appName: this.appName, userId: ctx.userId, sessionId: ctx.session.id },
        final,
      );
    const delta = final.actions.stateDelta;
    for (const k in delta) if (k.startsWith(TEMP_PREFIX)) ctx.shared.tempState[k] = delta[k];
    await this.sessionService.appendEvent(ctx.session, final);
    ctx.shared.observe?.(final);
    return final;
  }

  /**
   * The agent to run (docs/architecture.md §4.1, step 5): the one that issued the call a function response answers; else
   * the last agent that spoke, if it may be returned to; else the root.
   */
  findAgentToRun(session: Session, message: Content | undefined): BaseAgent {
    const responses = message ? eventFunctionResponses({ content: message } as Event) : [];
    const events = visibleEvents(session.events);
    if (responses.length > 0) {
      const ids = new Set(responses.map((r) => r.id));
      for (let i = events.length - 1; i >= 0; i--) {
        const event = events[i] as Event;
        if (eventFunctionCalls(event).some((c) => ids.has(c.id))) {
          const agent = this.agent.findAgent(event.author);
          if (agent) return agent;
          break;
        }
      }
    }
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i] as Event;
      if (event.author === 'user') continue;
      const agent = this.agent.findAgent(event.author);
      if (!agent) continue;
      if (agent === this.agent || mayBeReturnedTo(agent)) return agent;
      break;
    }
    return this.agent;
  }

  /** The invocation a message of function responses resumes, when the calls came from inside a Workflow. */
  private pausedWorkflowInvocation(session: Session, message: Content | undefined): string | undefined {
    if (!message?.parts.some((p) => p.functionResponse)) return undefined;
    const ids = new Set(eventFunctionResponses({ content: message } as Event).map((r) => r.id));
    const events = visibleEvents(session.events);
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i] as Event;
      if (!eventFunctionCalls(event).some((c) => ids.has(c.id))) continue;
      const agent = this.agent.findAgent(event.author);
      return agent && outermostWorkflow(agent) ? event.invocationId : undefined;
    }
    return undefined;
  }

  /**
   * Releases what the runner owns: every toolset of the agent tree (MCP sessions, connections),
   * then the plugins. Every one is closed even if another fails; the first failure is rethrown.
   */
  async close(): Promise<void> {
    this.runs.close();
    const errors: unknown[] = [];
    this.memoryWorkerClosed = true;
    try {
      await (await this.memoryJobs)?.stop();
    } catch (error) {
      errors.push(error);
    }
    for (const toolset of ownedToolsets(this.agent)) {
      try {
        await toolset.close?.();
      } catch (error) {
        errors.push(error);
      }
    }
    try {
      await this.pluginManager.close();
    } catch (error) {
      errors.push(error);
    }
    if (errors.length > 0) throw errors[0];
  }
}

/** Every toolset of the agent tree, including those of agents wrapped as tools, once each. */
function ownedToolsets(root: BaseAgent): Set<BaseToolset> {
  const found = new Set<BaseToolset>();
  const seen = new Set<BaseAgent>();
  const visit = (agent: BaseAgent) => {
    for (const a of agent.descendantsAndSelf()) {
      if (seen.has(a)) continue;
      seen.add(a);
      if (!(a instanceof LlmAgent)) continue;
      for (const entry of a.tools) {
        if (isToolset(entry)) found.add(entry);
        else {
          // An AgentTool (not imported here: it imports the Runner) carries its own agent tree.
          const inner = (entry as { agent?: unknown }).agent;
          if (inner instanceof BaseAgent) visit(inner);
        }
      }
    }
  };
  visit(root);
  return found;
}

/**
 * An agent below Sequential/Loop agents is run through them, so that the workflow goes on after it
 * (ADK's resumable invocations; docs/architecture.md §5.3). Returns the agent to start.
 */
function resumeThroughWorkflows(found: BaseAgent, shared: InvocationShared, hasWorkflow: boolean): BaseAgent {
  // Inside a graph Workflow, the outermost one resumes and re-walks its graph down to the paused node.
  const agent = (hasWorkflow && outermostWorkflow(found)) || found;
  const path = [agent];
  for (
    let a = agent.parentAgent;
    a && (agentKindOf(a) === 'sequential' || agentKindOf(a) === 'loop');
    a = a.parentAgent
  )
    path.unshift(a);
  if (path.length === 1) return agent;
  shared.resumePath = path;
  return path[0] as BaseAgent;
}

/** The outermost Workflow among the agent and its ancestors. */
function outermostWorkflow(agent: BaseAgent): Workflow | undefined {
  let found: Workflow | undefined;
  for (let a: BaseAgent | undefined = agent; a; a = a.parentAgent) if (isWorkflowAgent(a)) found = a;
  return found;
}

/** Telemetry and zod are loaded before the first run (each load is then a no-op). */
/** A user message held back while input guardrails run beside the model (see `Runner.holdInput`). */
interface HeldInput {
  event: Event;
  /** The checks' context: state the parallel ones record is committed with the message. */
  context: CallbackContext;
}

const heldInputs = new WeakMap<InvocationShared, HeldInput>();

let optionalModulesLoaded = false;

let liveRun: Promise<typeof import('./live-run.js')> | undefined;
/** Runner.runLive's implementation, imported once on first use. */
const loadLiveRun = () => (liveRun ??= import('./live-run.js'));

let timeTravel: Promise<typeof import('./time-travel.js')> | undefined;
/** Rewind and fork (time travel), imported once on first use. */
const loadTimeTravel = () => (timeTravel ??= import('./time-travel.js'));

let background: Promise<typeof import('./background.js')> | undefined;
/** Background runs (`startRun`, `resumeRun`, `recoverRuns`, workers), imported once on first use. */
const loadBackground = () => (background ??= import('./background.js'));

/** The reason the run's own signal carries once the run is over (one object, no DOMException per run). */
const RUN_ENDED = /* @__PURE__ */ new CancelledError('The run has ended');

/** Waits for `promise`, or throws CancelledError as soon as `signal` aborts. */
function waitOrAbort(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new CancelledError('The run was cancelled while queued'));
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(new CancelledError('The run was cancelled while queued'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** The branch an agent runs on when started directly: `parallel.child` below each ParallelAgent. */
function branchOf(agent: BaseAgent): string | undefined {
  const path: BaseAgent[] = [];
  for (let a: BaseAgent | undefined = agent; a; a = a.parentAgent) path.unshift(a);
  let branch: string | undefined;
  for (let i = 0; i + 1 < path.length; i++) {
    const parent = path[i] as BaseAgent;
    if (agentKindOf(parent) === 'parallel')
      branch = `${branch ?? parent.name}.${(path[i + 1] as BaseAgent).name}`;
  }
  return branch;
}

/** ADK's rule: the agent and every ancestor are LlmAgents that allow transfer back to their parent. */
function mayBeReturnedTo(agent: BaseAgent): boolean {
  for (let current: BaseAgent | undefined = agent; current; current = current.parentAgent) {
    if (!(current instanceof LlmAgent) || current.disallowTransferToParent) return false;
  }
  return true;
}

/**
 * Where a recovered invocation stands: its user content, and whether its last event already
 * answered (then nothing runs again). Undefined when the log has none of its events yet.
 */
function recoveryPoint(
  events: readonly Event[],
  invocationId: string,
): { userContent: Content | undefined; finished: boolean } | undefined {
  let userContent: Content | undefined;
  let last: Event | undefined;
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as Event;
    if (event.invocationId !== invocationId) {
      if (last) break;
      continue;
    }
    last ??= event;
    if (event.author === 'user' && event.content && !eventFunctionResponses(event).length)
      userContent = event.content;
  }
  if (!last) return undefined;
  const finished =
    last.author !== 'user' && !last.errorCode && isFinalResponse(last) && !last.longRunningToolIds?.length;
  return { userContent, finished };
}

const SUPERSEDED_MESSAGE = 'The process running it stopped, and later runs of the session went on without it';

/** Whether events of another invocation follow the last event of `invocationId` in the log. */
function supersededAt(events: readonly Event[], invocationId: string): boolean {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as Event;
    if (event.invocationId === invocationId) return i < events.length - 1;
  }
  return false;
}
