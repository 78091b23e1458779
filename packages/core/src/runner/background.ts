// Background runs of the Runner (`startRun`, `resumeRun`), loaded on the first of them: an app that
// only iterates `run()` does not load them (docs/decisions/0024-portable-core.md).
import type { Event } from '../events/event.js';
import type { PauseSigner } from '../flow/pause-signing.js';
import type { RunBody, RunManager } from '../runs/run-manager.js';
import type { RunRecord } from '../runs/run-store.js';
import type { SessionService } from '../sessions/session.js';
import type { RunParams, StartRunParams } from './runner.js';

/** What background runs need of their Runner. */
export interface BackgroundHost {
  readonly appName: string;
  readonly sessionService: SessionService;
  readonly runs: RunManager;
  readonly execution: 'local' | 'queue';
  readonly pauseSigner: PauseSigner | undefined;
  readonly runBody: RunBody<RunParams>;
  supersededAt(events: readonly Event[], invocationId: string): boolean;
  readonly supersededMessage: string;
}

/** `Runner.startRun` after its configuration check. */
export async function startBackgroundRun(host: BackgroundHost, params: StartRunParams): Promise<RunRecord> {
  // A forged answer is refused here (403 in the server), not left to fail the run it would start.
  if (host.pauseSigner && params.newMessage && !params.recover) {
    const key = { appName: host.appName, userId: params.userId, sessionId: params.sessionId };
    const session = await host.sessionService.getSession(key);
    await host.pauseSigner.verifyAnswers(key, session?.events ?? [], params.newMessage);
  }
  const local = host.execution === 'local';
  const record = await host.runs.admit(params, true, local);
  if (local) void drain(host.runs.execute(params, host.runBody, record, true));
  return { ...record };
}

/** `Runner.resumeRun`: continues a claimed run's invocation from the log. */
export async function resumeBackgroundRun(
  host: BackgroundHost,
  record: RunRecord,
  options: { signal?: AbortSignal },
): Promise<void> {
  const key = { appName: host.appName, userId: record.userId, sessionId: record.sessionId };
  const session = await host.sessionService.getSession(key);
  // A conversation that went on without it (a later run answered meanwhile) is not rewritten by
  // a late answer: the run ends failed, and its events so far stay as they are.
  if (session && host.supersededAt(session.events, record.invocationId)) {
    await host.runs.store.updateRun(
      { appName: host.appName, runId: record.id },
      {
        status: 'failed',
        endedAt: Date.now(),
        error: { code: 'INTERRUPTED', message: host.supersededMessage },
      },
    );
    return;
  }
  const { newMessage, stateDelta, runConfig } = record.input;
  // It stopped while input guardrails checked its message, which no store keeps before they
  // pass: it cannot be answered (answering the history without it would be wrong).
  if (
    record.input.messageWithheld &&
    !newMessage &&
    !session?.events.some((e) => e.invocationId === record.invocationId)
  ) {
    await host.runs.store.updateRun(
      { appName: host.appName, runId: record.id },
      {
        status: 'failed',
        endedAt: Date.now(),
        error: { code: 'INTERRUPTED', message: WITHHELD_MESSAGE },
      },
    );
    return;
  }
  const params: RunParams = {
    userId: record.userId,
    sessionId: record.sessionId,
    invocationId: record.invocationId,
    ...(newMessage ? { newMessage } : {}),
    ...(stateDelta ? { stateDelta } : {}),
    ...(runConfig ? { runConfig } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    recover: true,
  };
  return drain(host.runs.execute(params, host.runBody, record));
}

const WITHHELD_MESSAGE =
  'The process running it stopped while input guardrails checked its message, which is kept nowhere until they pass; send the message again';

/** Drives a background run to its end; its record says how it ended. */
async function drain(events: AsyncGenerator<Event, void, undefined>): Promise<void> {
  try {
    for await (const _ of events);
  } catch {
    // Recorded on the run.
  }
}
