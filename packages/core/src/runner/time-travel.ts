import type { ArtifactService } from '../artifacts/artifact-service.js';
import { ConcurrentInvocationError, NotFoundError } from '../errors/errors.js';
import { createEvent, type Event } from '../events/event.js';
import type { ListRunsParams, ListRunsResult, RunRecord } from '../runs/run-store.js';
import type { Session, SessionService } from '../sessions/session.js';
import {
  artifactVersionsAt,
  type ForkSessionParams,
  forkEventCount,
  forkSessionIn,
  restoringStateDelta,
  rewindStart,
} from '../sessions/time-travel.js';
import { newId } from '../utils/ids.js';

export interface RewindParams {
  userId: string;
  sessionId: string;
  /** The invocation to go back before: it and everything after it leave the visible history. */
  rewindBeforeInvocationId: string;
  /**
   * A rewind of a session with a queued or running run is refused (ConcurrentInvocationError);
   * with `true` those runs are cancelled first.
   */
  cancelRunning?: boolean;
}

export type RunnerForkParams = Omit<ForkSessionParams, 'appName'> & {
  /** As for `rewind`: cancel the session's queued and running runs instead of refusing. */
  cancelRunning?: boolean;
};

/** What the time-travel operations need from a Runner. */
export interface TimeTravelHost {
  appName: string;
  sessionService: SessionService;
  artifactService: ArtifactService | undefined;
  listRuns(params: Omit<ListRunsParams, 'appName'>): Promise<ListRunsResult>;
  cancelRun(runId: string): Promise<RunRecord | undefined>;
  /** Whether this process holds or queues a run (or live session) on the session. */
  busyHere(userId: string, sessionId: string): boolean;
}

const SETTLE_TIMEOUT_MS = 5_000;

/**
 * Refuses (or, asked to, cancels) the session's queued and running runs, so time travel never races
 * a turn that would append after it.
 */
export async function ensureIdle(
  host: TimeTravelHost,
  userId: string,
  sessionId: string,
  cancelRunning: boolean | undefined,
): Promise<void> {
  const active = async () => (await host.listRuns({ userId, sessionId, status: ['queued', 'running'] })).runs;
  let runs = await active();
  if (runs.length === 0 && !host.busyHere(userId, sessionId)) return;
  if (!cancelRunning)
    throw new ConcurrentInvocationError(
      `Session ${sessionId} has a run in progress (${runs.map((r) => r.id).join(', ') || 'in this process'}); wait for it, cancel it, or pass cancelRunning: true`,
      { details: { runIds: runs.map((r) => r.id) } },
    );
  for (const run of runs) await host.cancelRun(run.id);
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    runs = await active();
    if (runs.length === 0 && !host.busyHere(userId, sessionId)) return;
    if (Date.now() > deadline)
      throw new ConcurrentInvocationError(
        `Session ${sessionId} still has a run in progress after cancelling it; try again`,
        { details: { runIds: runs.map((r) => r.id) } },
      );
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function loadSession(host: TimeTravelHost, userId: string, sessionId: string): Promise<Session> {
  const session = await host.sessionService.getSession({ appName: host.appName, userId, sessionId });
  if (!session)
    throw new NotFoundError(`Session ${sessionId} not found for app ${host.appName}, user ${userId}`);
  return session;
}

/**
 * Appends one event that rewinds the session to before an invocation (docs/architecture.md §5.5):
 * `actions.rewindBeforeInvocationId`, a state delta restoring the session-scoped state of that
 * point (the state the session was created with included; `app:`/`user:` keys untouched) and an
 * artifact delta restoring session artifacts (the old bytes saved as a new version; artifacts first
 * saved after the point are deleted). Returns the committed event.
 */
export async function rewindSession(host: TimeTravelHost, params: RewindParams): Promise<Event> {
  await ensureIdle(host, params.userId, params.sessionId, params.cancelRunning);
  const session = await loadSession(host, params.userId, params.sessionId);
  const start = rewindStart(session, params.rewindBeforeInvocationId);
  const stateDelta = restoringStateDelta(session, start);
  const artifactDelta: Record<string, number> = {};
  const artifacts = host.artifactService;
  if (artifacts) {
    const then = artifactVersionsAt(session.events, start);
    const now = artifactVersionsAt(session.events, session.events.length);
    const scope = { appName: host.appName, userId: params.userId, sessionId: params.sessionId };
    for (const [filename, version] of now) {
      const old = then.get(filename);
      if (old === version) continue;
      if (old === undefined) {
        await artifacts.deleteArtifact({ ...scope, filename });
        continue;
      }
      const part = await artifacts.loadArtifact({ ...scope, filename, version: old });
      if (!part) continue;
      const meta = await artifacts.getArtifactVersion?.({ ...scope, filename, version: old });
      artifactDelta[filename] = await artifacts.saveArtifact({
        ...scope,
        filename,
        artifact: part,
        ...(meta?.customMetadata ? { customMetadata: meta.customMetadata } : {}),
      });
    }
  }
  const event = createEvent({
    invocationId: `e-${newId()}`,
    author: 'user',
    actions: { stateDelta, artifactDelta, rewindBeforeInvocationId: params.rewindBeforeInvocationId },
  });
  await host.sessionService.appendEvent(session, event);
  return event;
}

/**
 * Forks a session at an event (or before an invocation) into a new one holding that prefix of the
 * log, the state of that point and copies of the session artifacts' versions up to it; the source
 * is untouched.
 */
export async function forkRunnerSession(host: TimeTravelHost, params: RunnerForkParams): Promise<Session> {
  await ensureIdle(host, params.userId, params.sessionId, params.cancelRunning);
  const source = await loadSession(host, params.userId, params.sessionId);
  const { cancelRunning: _, ...rest } = params;
  const fork = await forkSessionIn(
    host.sessionService,
    { ...rest, appName: host.appName } as ForkSessionParams,
    source,
  );
  const artifacts = host.artifactService;
  if (artifacts) {
    const count = forkEventCount(source, params as ForkSessionParams);
    const versions = artifactVersionsAt(source.events, count);
    const from = { appName: host.appName, userId: params.userId, sessionId: params.sessionId };
    const to = { ...from, sessionId: fork.id };
    for (const [filename, last] of versions) {
      // Version numbers are kept (events of the fork refer to them): 0..last, in order.
      for (let version = 0; version <= last; version++) {
        const part = await artifacts.loadArtifact({ ...from, filename, version });
        if (!part) continue;
        const meta = await artifacts.getArtifactVersion?.({ ...from, filename, version });
        await artifacts.saveArtifact({
          ...to,
          filename,
          artifact: part,
          ...(meta?.customMetadata ? { customMetadata: meta.customMetadata } : {}),
        });
      }
    }
  }
  return fork;
}
