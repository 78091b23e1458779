import type { InvocationContext } from '../agents/invocation-context.js';
import { describeError } from '../errors/errors.js';
import { createEvent, type Event } from '../events/event.js';
import type { Llm } from '../models/llm.js';
import { hasMemoryJobs } from './jobs.js';
import {
  counter,
  type ObservationOutcome,
  type ObserveOptions,
  observeAt,
  observeEvents,
  outcomeApplies,
  stateOf,
  tokensOf,
  writeMemories,
} from './observe.js';

interface Task {
  running: boolean;
  outcome?: ObservationOutcome;
  done: Promise<void>;
}

const tasks = new Map<string, Task>();
/** Observation memories being written after their events were committed. */
const writes = new Set<Promise<void>>();

/**
 * Resolves once every background observation started in this process has finished, and the
 * memories of those already committed are written (for tests).
 */
export async function observationsSettled(): Promise<void> {
  while ([...tasks.values()].some((t) => t.running) || writes.size > 0)
    await Promise.all([...[...tasks.values()].map((t) => t.done), ...writes]);
}

/**
 * The response-path side of `memory.observe`, run before each model request: commits an observation
 * a background pass has finished (unless the session moved on under it), then starts the next pass
 * when the history not yet observed has reached the threshold: an `'observe'` job when the memory
 * service has a job queue and the session store a run lock, else a task in this process. Nothing here waits for a model.
 */
export async function* observeBeforeRequest(
  options: ObserveOptions,
  ctx: InvocationContext,
  defaultModel?: Llm | string,
): AsyncGenerator<Event, void, undefined> {
  const key = `${ctx.appName}\u0000${ctx.userId}\u0000${ctx.session.id}\u0000${ctx.branch ?? ''}`;
  const task = tasks.get(key);
  if (task?.running) return;
  if (task?.outcome) {
    tasks.delete(key);
    const { outcome } = task;
    if (outcome.events.length > 0 && outcomeApplies(outcome, ctx.session.events, ctx.branch)) {
      for (const e of outcome.events) {
        const { timestamp: _t, ...rest } = e;
        yield createEvent({ ...rest, invocationId: ctx.invocationId });
      }
      // Not awaited: a store may embed the text (a model call) before it writes.
      const write = writeMemories(ctx.memoryService, { appName: ctx.appName, userId: ctx.userId }, outcome)
        .catch((error: unknown) =>
          console.warn(`memory.observe: writing observation memories failed: ${describeError(error)}`),
        )
        .finally(() => writes.delete(write));
      writes.add(write);
    }
  }
  const state = stateOf(ctx.session.events, ctx.branch);
  if (tokensOf(counter(options), state.uncovered) < observeAt(options)) return;
  const memory = ctx.memoryService;
  // The job appends from outside the run: only where the store's run lock keeps it out of runs.
  if (hasMemoryJobs(memory) && ctx.sessionService.acquireRunLock) {
    await memory.jobs.enqueue([
      {
        kind: 'observe',
        appName: ctx.appName,
        userId: ctx.userId,
        sessionId: ctx.session.id,
        eventIds: state.uncovered.map((e) => e.id),
        ...(ctx.branch !== undefined ? { payload: { branch: ctx.branch } } : {}),
      },
    ]);
    return;
  }
  const events = ctx.session.events.slice();
  const sessionId = ctx.session.id;
  const next: Task = { running: true, done: Promise.resolve() };
  next.done = observeEvents(options, {
    events,
    sessionId,
    invocationId: ctx.invocationId,
    ...(ctx.branch !== undefined ? { branch: ctx.branch } : {}),
    ...(defaultModel !== undefined ? { defaultModel } : {}),
  }).then(
    (outcome) => {
      next.outcome = outcome;
      next.running = false;
    },
    (error: unknown) => {
      console.warn(`memory.observe: observing failed: ${describeError(error)}`);
      tasks.delete(key);
      next.running = false;
    },
  );
  tasks.set(key, next);
}
