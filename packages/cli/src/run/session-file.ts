import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  type Event,
  formatIssues,
  type InMemorySessionService,
  lazySchema,
  parseEvent,
  parseJson,
  type Session,
} from '@adk/core';
import { CliUsageError } from '../errors.js';

/**
 * `adk run` keeps each session as one JSON file (`<data-dir>/run/<app>/<user>/<session>.json`):
 * its initial state and its events. Resuming replays the events into an in-memory session service,
 * which rebuilds the state. A file per session needs no database and never contends with a
 * running `adk web` for the same data folder.
 */
export interface SessionFile {
  appName: string;
  userId: string;
  id: string;
  initialState: Record<string, unknown>;
  events: Event[];
}

const fileSchema = lazySchema((z) =>
  z.object({
    appName: z.string(),
    userId: z.string(),
    id: z.string(),
    initialState: z.record(z.string(), z.unknown()),
    events: z.array(z.unknown()),
  }),
);

const SAFE_ID = /^[A-Za-z0-9_.-]+$/;

export function sessionFilePath(dataDir: string, appName: string, userId: string, sessionId: string): string {
  for (const [what, value] of [
    ['user id', userId],
    ['session id', sessionId],
  ] as const) {
    if (!SAFE_ID.test(value) || value.startsWith('.'))
      throw new CliUsageError(`Invalid ${what} "${value}": use letters, digits, '_', '-' and '.'`);
  }
  return join(dataDir, 'run', appName, userId, `${sessionId}.json`);
}

/** Opens (or creates) a session kept in a file, in a fresh in-memory session service. */
export async function openFileSession(
  service: InMemorySessionService,
  file: string,
  key: { appName: string; userId: string; sessionId: string },
  initialState: Record<string, unknown> = {},
): Promise<{ session: Session; resumed: boolean; initialState: Record<string, unknown> }> {
  if (!existsSync(file)) {
    const session = await service.createSession({ ...key, state: initialState });
    return { session, resumed: false, initialState };
  }
  const parsed = fileSchema.safeParse(parseJson(readFileSync(file, 'utf8'), `session file ${file}`));
  if (!parsed.success)
    throw new CliUsageError(`Invalid session file ${file}: ${formatIssues(parsed.error.issues)}`);
  const stored = parsed.data;
  let session = await service.createSession({ ...key, state: stored.initialState });
  for (const [i, raw] of stored.events.entries()) {
    let event: Event;
    try {
      event = parseEvent(raw);
    } catch (error) {
      throw new CliUsageError(`Invalid session file ${file}: event #${i + 1} is not an ADK event`, {
        cause: error,
      });
    }
    await service.appendEvent(session, event);
  }
  session = (await service.getSession(key)) ?? session;
  return { session, resumed: true, initialState: stored.initialState };
}

export async function saveFileSession(
  service: InMemorySessionService,
  file: string,
  key: { appName: string; userId: string; sessionId: string },
  initialState: Record<string, unknown>,
): Promise<void> {
  const session = await service.getSession(key);
  if (!session) return;
  const data: SessionFile = {
    appName: key.appName,
    userId: key.userId,
    id: key.sessionId,
    initialState,
    events: session.events,
  };
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(data, null, 1)}\n`);
  renameSync(tmp, file);
}
