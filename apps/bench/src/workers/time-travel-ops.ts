// Child process: Runner.rewind and Runner.forkSession latency on a session of `events` events in
// an @adk/session-sql store.
import { createEvent, type Event, LlmAgent, Runner } from '@adk/core';
import { loadSqlSessionService } from '../frameworks/adk-sql.js';
import { type DriverOptions, SkipError } from '../frameworks/types.js';
import { emitResult, emitSkip, workerArgs } from './protocol.js';

export interface TimeTravelOpsArgs extends DriverOptions {
  /** Events in the session (two per invocation: a question and an answer). */
  events: number;
  /** Timed rewinds, each reaching one invocation further back. */
  rewinds: number;
  /** Timed forks, each at an event near the end of the log. */
  forks: number;
}

export interface TimeTravelOpsResult {
  rewindMs: number[];
  forkMs: number[];
  /** Events the last fork held (checks that forks copied the log). */
  forkedEvents: number;
}

function turnEvent(index: number): Event {
  const invocationId = `inv-${Math.floor(index / 2)}`;
  return index % 2 === 0
    ? createEvent({
        invocationId,
        author: 'user',
        content: { role: 'user', parts: [{ text: `Question ${index}` }] },
      })
    : createEvent({
        invocationId,
        author: 'assistant',
        content: { role: 'model', parts: [{ text: `Answer ${index}: it is sunny in Paris.` }] },
        actions: { stateDelta: { lastAnswer: index } },
      });
}

async function main(): Promise<void> {
  const args = workerArgs<TimeTravelOpsArgs>();
  let service: Awaited<ReturnType<typeof loadSqlSessionService>>;
  try {
    service = await loadSqlSessionService(args);
  } catch (error) {
    if (error instanceof SkipError) return emitSkip(error.message);
    throw error;
  }
  const runner = new Runner({
    appName: 'bench',
    // Never run: rewind and fork only read and write the log.
    agent: new LlmAgent({ name: 'assistant', model: 'gemini-2.5-flash' }),
    sessionService: service,
  });
  if (typeof (runner as Partial<Runner>).rewind !== 'function')
    return emitSkip('Runner.rewind is not there yet');
  const sessionId = `tt-${process.pid}`;
  const key = { appName: 'bench', userId: 'u', sessionId };
  const session = await service.createSession({ ...key, state: { topic: 'weather' } });
  const events: Event[] = [];
  for (let i = 0; i < args.events; i++) {
    const event = turnEvent(i);
    events.push(event);
    await service.appendEvent(session, event);
  }
  const forkMs: number[] = [];
  let forkedEvents = 0;
  for (let i = 0; i < args.forks; i++) {
    const at = events[events.length - 1 - (i % 10)] as Event;
    const start = performance.now();
    const fork = await runner.forkSession({
      userId: 'u',
      sessionId,
      atEventId: at.id,
      newSessionId: `fork-${i}`,
    });
    forkMs.push(performance.now() - start);
    forkedEvents = fork.events.length;
  }
  const rewindMs: number[] = [];
  const lastInvocation = Math.floor((args.events - 1) / 2);
  for (let i = 0; i < args.rewinds; i++) {
    const start = performance.now();
    await runner.rewind({ userId: 'u', sessionId, rewindBeforeInvocationId: `inv-${lastInvocation - i}` });
    rewindMs.push(performance.now() - start);
  }
  await runner.close();
  await service.close?.();
  emitResult({ rewindMs, forkMs, forkedEvents } satisfies TimeTravelOpsResult);
}

await main();
