// RunManager.events (tails of a run's events), loaded on the first tail: an app that only runs
// invocations in the foreground does not load it (docs/decisions/0024-portable-core.md).
import { NotFoundError, ValidationError } from '../errors/errors.js';
import type { Event } from '../events/event.js';
import { delayUnlessAborted as sleep } from '../utils/abort.js';
import type { ActiveRun, RunEventsOptions } from './run-manager.js';
import { isRunFinished, type RunKey, type RunRecord, type RunStore } from './run-store.js';

/** What a tail needs of its RunManager. */
export interface RunTailHost {
  readonly active: ReadonlyMap<string, ActiveRun>;
  readonly store: RunStore;
  key(runId: string): RunKey;
  storedEvents(record: RunRecord): Promise<Event[]>;
}

export async function* runEvents(
  host: RunTailHost,
  runId: string,
  options: RunEventsOptions = {},
): AsyncGenerator<Event, RunRecord, undefined> {
  const local = host.active.get(runId);
  let record = local ? local.record : await host.store.getRun(host.key(runId));
  if (!record) throw new NotFoundError(`Run not found: ${runId}`);
  // A run started here keeps all of its events in memory: its tail reads no store at all.
  const afterAt =
    local?.complete && options.after !== undefined
      ? local.events.findIndex((e) => e.id === options.after)
      : -1;
  const fromMemory = local?.complete && (options.after === undefined || afterAt >= 0);
  // Otherwise attach before reading the store: every event published from here on is buffered,
  // and every event published before was committed before it was published, so the read has it.
  let cursor = fromMemory ? 0 : (local?.events.length ?? 0);
  let wake: (() => void) | undefined;
  const listener = () => wake?.();
  local?.listeners.add(listener);
  const seen = new Set<string>();
  try {
    if (fromMemory && afterAt >= 0) {
      for (let i = 0; i <= afterAt; i++) {
        const event = local.events[i] as Event;
        if (!event.partial) seen.add(event.id);
      }
      cursor = afterAt + 1;
    }
    const stored = fromMemory ? [] : await host.storedEvents(record);
    let start = 0;
    if (!fromMemory && options.after !== undefined) {
      start = stored.findIndex((e) => e.id === options.after) + 1;
      if (start === 0)
        throw new ValidationError(`Event ${options.after} is not a stored event of run ${runId}`);
    }
    for (let i = 0; i < stored.length; i++) {
      const event = stored[i] as Event;
      seen.add(event.id);
      if (i >= start) yield event;
    }
    if (local) {
      while (true) {
        while (cursor < local.events.length) {
          const event = local.events[cursor++] as Event;
          if (seen.has(event.id)) continue;
          if (!event.partial) seen.add(event.id);
          yield event;
        }
        if (local.done || options.signal?.aborted) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
          options.signal?.addEventListener('abort', () => resolve(), { once: true });
        });
        wake = undefined;
      }
      // `finish` wrote the final status, end and error into the record before it woke us.
      return { ...local.record };
    }
    // Executing elsewhere (or finished): poll the log until the run has finished.
    const interval = options.pollIntervalMs ?? 100;
    while (!isRunFinished(record.status) && !options.signal?.aborted) {
      await sleep(interval, options.signal);
      record = (await host.store.getRun(host.key(runId))) ?? record;
      for (const event of await host.storedEvents(record)) {
        if (seen.has(event.id)) continue;
        seen.add(event.id);
        yield event;
      }
    }
    return record;
  } finally {
    local?.listeners.delete(listener);
  }
}
