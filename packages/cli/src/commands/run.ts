import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import {
  defaultModelRegistry,
  formatIssues,
  InMemorySessionService,
  lazySchema,
  newId,
  parseJson,
  Runner,
  type Session,
  type SessionService,
} from '@adk/core';
import type { Command } from 'commander';
import { CliUsageError } from '../errors.js';
import { createAppLoader, loadAgentModule } from '../loader/app-loader.js';
import { loadEnvFile } from '../loader/env-file.js';
import { describeAgentModel, registerModelsFromEnv } from '../models/pick-model.js';
import { openFileSession, saveFileSession, sessionFilePath } from '../run/session-file.js';
import { runTerminalChat } from '../run/terminal-chat.js';
import type { CommandModule } from './command.js';

interface RunOptions {
  session?: string;
  replay?: string;
  user: string;
  dataDir?: string;
  /** A database for sessions (`pglite://…`, `sqlite://…`, `postgres://…`); default `DATABASE_URL`. */
  databaseUrl?: string;
}

/** ADK's replay file: initial session state and the user's queries, sent in order. */
const replaySchema = lazySchema((z) =>
  z.object({
    state: z.record(z.string(), z.unknown()).default({}),
    queries: z.array(z.string()),
  }),
);

function readReplay(file: string): { state: Record<string, unknown>; queries: string[] } {
  if (!existsSync(file)) throw new CliUsageError(`Replay file not found: ${file}`);
  const parsed = replaySchema.safeParse(parseJson(readFileSync(file, 'utf8'), `replay file ${file}`));
  if (!parsed.success)
    throw new CliUsageError(
      `Invalid replay file ${file} (expected {"state": {...}, "queries": ["..."]}): ${formatIssues(parsed.error.issues)}`,
    );
  return parsed.data;
}

/** An agent folder, an agent module file, or an app of a folder of apps given as `dir/app`. */
async function loadTarget(target: string) {
  const path = resolve(target);
  if (!existsSync(path)) throw new CliUsageError(`No agent at ${path}`);
  if (statSync(path).isFile()) {
    loadEnvFile(dirname(path));
    const name = basename(dirname(path));
    return { appName: name, folder: dirname(path), agent: await loadAgentModule(path) };
  }
  const loader = createAppLoader(path);
  if (!loader.isSingleApp) {
    const apps = await loader.list();
    throw new CliUsageError(
      `${path} is a folder of apps, not an agent: run one of them, e.g. adk run ${target.replace(/\/$/, '')}/${apps[0] ?? '<app>'}`,
    );
  }
  const [name] = await loader.list();
  return { appName: name as string, folder: path, agent: await loader.load(name as string) };
}

async function run(target: string, options: RunOptions): Promise<void> {
  const { appName, folder, agent } = await loadTarget(target);
  registerModelsFromEnv(defaultModelRegistry);
  const replay = options.replay ? readReplay(resolve(options.replay)) : undefined;
  const sessionId = options.session ?? `run-${newId()}`;
  const key = { appName, userId: options.user, sessionId };
  const databaseUrl = options.databaseUrl || process.env.DATABASE_URL || undefined;
  const store = databaseUrl
    ? await openSqlSession(databaseUrl, key, replay?.state)
    : await openJsonSession(resolve(options.dataDir ?? resolve(folder, '.adk')), key, replay?.state);
  const { sessionService, opened } = store;
  const runner = new Runner({ appName, agent, sessionService });
  const notice = (line: string) => process.stderr.write(`${line}\n`);
  notice(
    `Running ${agent.name} (app ${appName}) — model: ${describeAgentModel(agent, defaultModelRegistry)}\n` +
      `Session ${sessionId}${opened.resumed ? ` resumed (${opened.session.events.length} events)` : ''}; resume it with --session ${sessionId}. Type "exit" or press Ctrl-D to quit.`,
  );
  try {
    await runTerminalChat({
      runner,
      userId: options.user,
      sessionId,
      input: process.stdin,
      output: process.stdout,
      errors: process.stderr,
      interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
      ...(replay ? { queries: replay.queries } : {}),
      afterTurn: () => store.afterTurn(),
    });
  } finally {
    await runner.close();
    await store.close();
  }
  notice(`Session saved to ${store.where}`);
}

interface OpenedStore {
  sessionService: SessionService;
  opened: { session: Session; resumed: boolean };
  /** Where the session is kept, for the last line. */
  where: string;
  afterTurn(): Promise<void>;
  close(): Promise<void>;
}

/** Sessions as JSON files under the data folder (the default without a database URL). */
async function openJsonSession(
  dataDir: string,
  key: { appName: string; userId: string; sessionId: string },
  state: Record<string, unknown> | undefined,
): Promise<OpenedStore> {
  const file = sessionFilePath(dataDir, key.appName, key.userId, key.sessionId);
  const sessionService = new InMemorySessionService();
  let opened: Awaited<ReturnType<typeof openFileSession>>;
  try {
    opened = await openFileSession(sessionService, file, key, state);
  } catch (error) {
    if (error instanceof CliUsageError) throw error;
    throw new CliUsageError(`Could not open session file ${file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return {
    sessionService,
    opened,
    where: file,
    afterTurn: () => saveFileSession(sessionService, file, key, opened.initialState),
    close: async () => {},
  };
}

/** Sessions in the database the servers use (DATABASE_URL): each event is stored as it happens. */
async function openSqlSession(
  url: string,
  key: { appName: string; userId: string; sessionId: string },
  state: Record<string, unknown> | undefined,
): Promise<OpenedStore> {
  const { createSqlStores } = await import('@adk/session-sql');
  let stores: Awaited<ReturnType<typeof createSqlStores>>;
  try {
    stores = await createSqlStores(url);
  } catch (error) {
    throw new CliUsageError(`Could not open the database ${redactUrl(url)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const existing = await stores.sessions.getSession(key);
  const session = existing ?? (await stores.sessions.createSession({ ...key, state: state ?? {} }));
  return {
    sessionService: stores.sessions,
    opened: { session, resumed: existing !== undefined },
    where: `${redactUrl(url)} (session ${key.sessionId})`,
    afterTurn: async () => {},
    close: () => stores.close(),
  };
}

/** The URL without its password, for messages. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

export const runCommand: CommandModule = (program: Command) => {
  program
    .command('run')
    .description('chat with an agent in the terminal (works through a pipe: one message per line)')
    .argument('<agent>', 'an agent folder (with agent.ts exporting rootAgent) or an agent module file')
    .option('--session <id>', 'resume this session (or start one with this id)')
    .option(
      '--replay <file>',
      'send the queries of an ADK replay file ({"state": {...}, "queries": [...]}) and exit',
    )
    .option('--user <id>', 'user id of the session', 'user')
    .option('--data-dir <dir>', 'where JSON sessions are saved (default: <agent folder>/.adk)')
    .option(
      '--database-url <url>',
      'keep sessions in this database instead (pglite://<dir>, sqlite://<file>, postgres://…; default: DATABASE_URL)',
    )
    .addHelpText(
      'after',
      `
Examples:
  adk run apps/examples/assistant
  echo "What is 12 * 7?" | adk run apps/examples/assistant
  adk run ./my_agent --session run-abc123        resume a conversation
  adk run ./my_agent --replay replay.json

Replies stream as they are generated; tool calls (→) and results (←) are shown; a tool that needs
confirmation asks y/n. Sessions are saved as JSON under <data-dir>/run/, or, with --database-url
or DATABASE_URL (the variable adk web and adk api_server read), in that database: the same
sessions the servers show. sqlite:// needs Node >= 22.5 (node:sqlite).`,
    )
    .action(run);
};
