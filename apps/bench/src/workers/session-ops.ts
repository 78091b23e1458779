// Child process: appendEvent and getSession latency of a session service on a session that holds
// (or grows to) `events` events.
import { createEvent, type Event } from '@adk/core';
import { loadSqlSessionService } from '../frameworks/adk-sql.js';
import { type DriverOptions, SkipError } from '../frameworks/types.js';
import { peakRssBytes } from '../harness/stats.js';
import { emitResult, emitSkip, workerArgs } from './protocol.js';

export interface SessionOpsArgs extends DriverOptions {
  /** Events appended first, so that the session holds this many. */
  events: number;
  /** Timed getSession calls on the full session. */
  gets: number;
  /** Timed appendEvent calls on the full session. */
  appends: number;
}

export interface SessionOpsResult {
  appendMs: number[];
  getMs: number[];
  eventsRead: number;
  peakRssBytes: number;
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
  const args = workerArgs<SessionOpsArgs>();
  let service: Awaited<ReturnType<typeof loadSqlSessionService>>;
  try {
    service = await loadSqlSessionService(args);
  } catch (error) {
    if (error instanceof SkipError) return emitSkip(error.message);
    throw error;
  }
  const key = { appName: 'bench', userId: 'u', sessionId: `ops-${process.pid}` };
  const session = await service.createSession(key);
  for (let i = 0; i < args.events; i++) await service.appendEvent(session, turnEvent(i));
  const getMs: number[] = [];
  let eventsRead = 0;
  for (let i = 0; i < args.gets; i++) {
    const start = performance.now();
    const loaded = await service.getSession(key);
    getMs.push(performance.now() - start);
    eventsRead = loaded?.events.length ?? 0;
  }
  const appendMs: number[] = [];
  for (let i = args.events; i < args.events + args.appends; i++) {
    const event = turnEvent(i);
    const start = performance.now();
    await service.appendEvent(session, event);
    appendMs.push(performance.now() - start);
  }
  await service.close?.();
  const result: SessionOpsResult = { appendMs, getMs, eventsRead, peakRssBytes: peakRssBytes() };
  emitResult(result);
}

await main();
