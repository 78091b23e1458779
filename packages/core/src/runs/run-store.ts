import type { RunConfig } from '../agents/run-config.js';
import type { Content } from '../events/content.js';
import type { RunUsage } from './run-usage.js';

/**
 * Where a run is in its life. `paused`: it ended waiting for the user (a long-running tool call,
 * a confirmation, a credential or a workflow question); a later run answers it.
 */
export type RunStatus = 'queued' | 'running' | 'paused' | 'succeeded' | 'failed' | 'cancelled';

/** Statuses a run never leaves. */
export const FINISHED_RUN_STATUSES: ReadonlySet<RunStatus> = new Set([
  'paused',
  'succeeded',
  'failed',
  'cancelled',
]);

export function isRunFinished(status: RunStatus): boolean {
  return FINISHED_RUN_STATUSES.has(status);
}

/**
 * What happens when a run is started on a session that already has one queued or running
 * ("double-texting"): `reject` fails with ConcurrentInvocationError, `enqueue` runs it after the
 * others (FIFO per session), `interrupt` cancels the others first.
 */
export type MultitaskStrategy = 'reject' | 'enqueue' | 'interrupt';

/** What a run was started with (enough for any process to execute a queued run). */
export interface RunInput {
  newMessage?: Content;
  /**
   * The run had a message that is not kept here until input guardrails have checked it (then
   * `newMessage` is the checked one). A run recovered with this still set and none of its events
   * in the log ends failed (`INTERRUPTED`): its message is kept nowhere.
   */
  messageWithheld?: boolean;
  stateDelta?: Record<string, unknown>;
  /** The run config as JSON (no functions, no signals). */
  runConfig?: RunConfig;
}

/** A run: one invocation as an addressable job. */
export interface RunRecord {
  id: string;
  appName: string;
  userId: string;
  sessionId: string;
  /** The invocation id of the run's events in the session log. */
  invocationId: string;
  status: RunStatus;
  /** Started with `startRun` to go on without a client attached. */
  background: boolean;
  /** The instance that executes (or last executed) the run. */
  owner?: string;
  /** Last sign of life from the owner (ms). */
  heartbeatAt?: number;
  /** Set when someone asked for the run to be cancelled. */
  cancelRequested?: boolean;
  createdAt: number;
  startedAt?: number;
  endedAt?: number;
  error?: { code: string; message: string };
  input: RunInput;
  /** Tokens and cost of the run's model calls, set when it ends (see `runUsageOf`). */
  usage?: RunUsage;
}

export type RunPatch = Partial<
  Pick<
    RunRecord,
    'status' | 'owner' | 'heartbeatAt' | 'cancelRequested' | 'startedAt' | 'endedAt' | 'error' | 'usage'
  >
> & {
  /** Replaces what the run was started with (an input guardrail redacted or withheld the message). */
  input?: RunInput;
};

export interface RunKey {
  appName: string;
  runId: string;
}

export interface ListRunsParams {
  appName: string;
  userId?: string;
  sessionId?: string;
  /** Only runs with one of these statuses. */
  status?: RunStatus[];
  pageSize?: number;
  pageToken?: string;
}

export interface ClaimRunParams {
  /** Only runs of this app (default: any app of the store). */
  appName?: string;
  owner: string;
  staleBefore: number;
  /**
   * Also claim a `running` run whose owner's last heartbeat is older than this (ms) when the store
   * can tell that its owner no longer holds the run's session — on Postgres, the session's run lock
   * is free because the owner's connection closed (its process died). Such a run is taken over
   * within a claim poll of the owner's death instead of after `staleBefore`.
   */
  orphanedBefore?: number;
}

export interface ListRunsResult {
  /** Newest first. */
  runs: RunRecord[];
  nextPageToken?: string;
}

/**
 * Stores run records beside the sessions. Every implementation passes `runStoreConformance` from
 * `@adk/core/testing`. A store shared by several processes also tells each of them about cancel
 * requests (`onCancelRequested`), so a run stops wherever it executes.
 */
export interface RunStore {
  /** True when other processes read and write the same records (a database), false in memory. */
  readonly shared: boolean;
  createRun(run: RunRecord): Promise<RunRecord>;
  getRun(key: RunKey): Promise<RunRecord | undefined>;
  /**
   * Applies `patch` and returns the new record; undefined when the run does not exist. A run that
   * has finished keeps its status (a late update from a stopped owner never reopens it).
   */
  updateRun(key: RunKey, patch: RunPatch): Promise<RunRecord | undefined>;
  listRuns(params: ListRunsParams): Promise<ListRunsResult>;
  /**
   * Marks the run as to be cancelled and tells every process that listens. A queued run is
   * cancelled at once (no one executes it yet); a finished run is returned unchanged.
   */
  requestCancel(key: RunKey): Promise<RunRecord | undefined>;
  /** Calls `listener` for every cancel request made through this store, in any process. */
  onCancelRequested?(listener: (key: RunKey) => void): () => void;
  /**
   * For shared stores without notifications: called often by the process executing `runIds`
   * while they run; records its heartbeat on them (when `heartbeat`) and answers the ids someone
   * asked to cancel. A bare boolean third argument is the deprecated form of `{ heartbeat }`
   * (read it with `pollRunsOptions`).
   */
  pollRuns?(appName: string, runIds: string[], options?: PollRunsOptions | boolean): Promise<string[]>;
  /**
   * Claims one run of the app for `owner` to execute, oldest first: a queued run nobody executes
   * yet, or a queued or running one whose owner's last heartbeat (or creation, without one) is
   * older than `staleBefore` (ms) — its process stopped (never one `owner` already has). Safe when several processes claim at once
   * (each run goes to one of them). The claimed record names `owner` and has a fresh heartbeat.
   */
  claimRun?(params: ClaimRunParams): Promise<RunRecord | undefined>;
  close?(): Promise<void>;
}

/** Options of `RunStore.pollRuns`. */
export interface PollRunsOptions {
  /** Record this process's heartbeat on the runs (default false). */
  heartbeat?: boolean;
  signal?: AbortSignal;
}

/** `pollRuns`' options from either form (the deprecated boolean is `heartbeat`). */
export function pollRunsOptions(options: PollRunsOptions | boolean | undefined): PollRunsOptions {
  return typeof options === 'boolean' ? { heartbeat: options } : (options ?? {});
}
