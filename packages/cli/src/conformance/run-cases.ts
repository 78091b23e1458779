import { existsSync } from 'node:fs';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import {
  defaultModelRegistry,
  describeError,
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemorySessionService,
} from '@adk/core';
import { CliUsageError } from '../errors.js';
import { createAppLoader } from '../loader/app-loader.js';
import { registerModelsFromEnv } from '../models/pick-model.js';
import { describeDifference } from './diff.js';
import {
  generatedFiles,
  readRecordings,
  readSessionFile,
  readTestSpec,
  type SessionFile,
  type StreamingMode,
  type TestSpec,
} from './formats.js';
import {
  ConformancePlugin,
  capabilitiesBeneathReplay,
  RECORDINGS_CONFIG_KEY,
  REPLAY_CONFIG_KEY,
  ReplayModel,
  replayModelProvider,
} from './plugin.js';
import type { RequestComparison } from './request-shape.js';
import { isPlainObject, pruneDefaults, toCamel, toSnake } from './wire.js';
import { toYaml } from './yaml-file.js';

/** The user every case runs as (adk-python's choice). */
export const CONFORMANCE_USER = 'adk_conformance_test_user';

export interface ConformanceCase {
  /** The folder above the case folder (`tests/<category>/<name>`). */
  category: string;
  name: string;
  dir: string;
  /** Undefined when spec.yaml could not be read (see `loadError`). */
  spec: TestSpec | undefined;
  loadError?: Error;
}

export type CaseStatus = 'passed' | 'failed' | 'skipped' | 'recorded';

export interface CaseResult {
  category: string;
  name: string;
  dir: string;
  description: string | undefined;
  streaming: StreamingMode;
  status: CaseStatus;
  /** Why it failed or was skipped; a failure's message holds the first difference as a diff. */
  message?: string;
}

export interface ConformanceRunOptions {
  /** The folder of apps (each case's `agent` is an app folder in it). */
  agentsDir: string;
  /** Folders searched for `spec.yaml` (a case folder itself, or any folder above cases). */
  testPaths: string[];
  mode: 'record' | 'replay';
  /** Default: record `none`; replay both `none` and `sse` (cases without those recordings are skipped). */
  streamingModes?: StreamingMode[];
  /** Only cases whose `category/name` contains one of these (`*` matches anything). */
  filter?: string[];
  /** Replay: model requests compared exactly (default) or leniently (see request-shape.ts). */
  requestComparison?: RequestComparison;
  /** Progress lines. */
  log?: (line: string) => void;
}

export interface ConformanceRun {
  mode: 'record' | 'replay';
  requestComparison: RequestComparison;
  agentsDir: string;
  testPaths: string[];
  version: string;
  results: CaseResult[];
}

const SKIP_DIRS = new Set(['node_modules', '.git', '.adk']);

async function findSpecs(dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    if (entry.isFile() && (entry.name === 'spec.yaml' || entry.name === 'spec.yml'))
      out.push(join(dir, entry.name));
  }
  for (const entry of entries)
    if (entry.isDirectory() && !SKIP_DIRS.has(entry.name)) await findSpecs(join(dir, entry.name), out);
}

function matches(id: string, patterns: string[] | undefined): boolean {
  if (!patterns || patterns.length === 0) return true;
  return patterns.some((p) => {
    if (!p.includes('*')) return id.includes(p);
    const re = new RegExp(
      `^${p
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    return re.test(id);
  });
}

/** The cases under the test folders, sorted by category and name. */
export async function discoverCases(testPaths: string[], filter?: string[]): Promise<ConformanceCase[]> {
  const specs: string[] = [];
  for (const path of testPaths) {
    if (!existsSync(path)) throw new CliUsageError(`No folder of conformance cases at ${path}`);
    await findSpecs(resolve(path), specs);
  }
  const cases: ConformanceCase[] = [];
  for (const file of [...new Set(specs)]) {
    const dir = dirname(file);
    const item: ConformanceCase = {
      category: basename(dirname(dir)),
      name: basename(dir),
      dir,
      spec: undefined,
    };
    if (!matches(`${item.category}/${item.name}`, filter)) continue;
    try {
      item.spec = await readTestSpec(file);
    } catch (error) {
      item.loadError = error as Error;
    }
    cases.push(item);
  }
  return cases.sort((a, b) => `${a.category}/${a.name}`.localeCompare(`${b.category}/${b.name}`));
}

/** A small client of the api_server routes adk-python's conformance client uses. */
class ServerClient {
  constructor(private readonly base: string) {}

  private async call(method: string, path: string, body?: unknown): Promise<Response> {
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) {
      const text = await response.text();
      throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
    }
    return response;
  }

  async version(): Promise<string> {
    const data = (await (await this.call('GET', '/version')).json()) as Record<string, unknown>;
    return String(data.version ?? data.adk_version ?? 'unknown');
  }

  async createSession(app: string, state: Record<string, unknown>): Promise<string> {
    const res = await this.call(
      'POST',
      `/apps/${encodeURIComponent(app)}/users/${CONFORMANCE_USER}/sessions`,
      { state },
    );
    return ((await res.json()) as { id: string }).id;
  }

  async getSession(app: string, id: string): Promise<Record<string, unknown>> {
    const res = await this.call(
      'GET',
      `/apps/${encodeURIComponent(app)}/users/${CONFORMANCE_USER}/sessions/${id}`,
    );
    return (await res.json()) as Record<string, unknown>;
  }

  async deleteSession(app: string, id: string): Promise<void> {
    await this.call('DELETE', `/apps/${encodeURIComponent(app)}/users/${CONFORMANCE_USER}/sessions/${id}`);
  }

  /** `POST /run_sse`; the streamed events (camelCase), an `error` payload thrown. */
  async runSse(body: Record<string, unknown>): Promise<Record<string, unknown>[]> {
    const res = await this.call('POST', '/run_sse', body);
    const events: Record<string, unknown>[] = [];
    for (const line of (await res.text()).split('\n')) {
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (!data) continue;
      let event: unknown;
      try {
        event = JSON.parse(data);
      } catch (error) {
        throw new Error(`The server streamed data that is not JSON: ${data.slice(0, 200)}`, { cause: error });
      }
      if (isPlainObject(event) && 'error' in event && !('author' in event))
        throw new Error(String(event.error));
      if (isPlainObject(event)) events.push(event);
    }
    return events;
  }
}

/** The user's message of turn `index`: text, or content whose function responses get the ids of the run's calls. */
function userContent(spec: TestSpec, index: number, callIds: Map<string, string>): Record<string, unknown> {
  const message = spec.user_messages[index];
  if (!message) throw new Error(`No user message ${index}`);
  if (message.text !== undefined) return { role: 'user', parts: [{ text: message.text }] };
  const content = toCamel(structuredClone(message.content)) as {
    role?: string;
    parts: Record<string, unknown>[];
  };
  for (const part of content.parts) {
    const response = part.functionResponse;
    if (!isPlainObject(response) || typeof response.name !== 'string') continue;
    const id = callIds.get(response.name);
    if (!id)
      throw new Error(`User message ${index} answers "${response.name}", but the run made no call to it`);
    response.id = id;
  }
  return { ...content, role: content.role ?? 'user' };
}

function collectCallIds(events: Record<string, unknown>[], into: Map<string, string>): void {
  for (const event of events) {
    const content = event.content;
    if (!isPlainObject(content) || !Array.isArray(content.parts)) continue;
    for (const part of content.parts) {
      const call = isPlainObject(part) ? part.functionCall : undefined;
      if (isPlainObject(call) && typeof call.name === 'string' && typeof call.id === 'string')
        into.set(call.name, call.id);
    }
  }
}

const MODE_KEYS = [RECORDINGS_CONFIG_KEY, REPLAY_CONFIG_KEY];

function withoutModeKeys(map: unknown): unknown {
  if (!isPlainObject(map)) return map;
  const out = { ...map };
  for (const key of MODE_KEYS) delete out[key];
  return out;
}

/** A session from the server (ADK JSON, camelCase) as ADK's session file: snake_case, mode keys out. */
export function sessionToFile(session: Record<string, unknown>): SessionFile {
  const snake = toSnake(session) as Record<string, unknown>;
  snake.state = withoutModeKeys(snake.state);
  if (Array.isArray(snake.events))
    for (const event of snake.events)
      if (isPlainObject(event) && isPlainObject(event.actions))
        event.actions.state_delta = withoutModeKeys(event.actions.state_delta);
  return pruneDefaults(snake) as SessionFile;
}

/** An event without what differs between runs (ids, times, invocation ids, thought signatures). */
export function comparableEvent(event: unknown): unknown {
  if (!isPlainObject(event)) return event;
  const {
    id: _id,
    timestamp: _t,
    invocation_id: _i,
    long_running_tool_ids: _l,
    ...rest
  } = structuredClone(event);
  const content = rest.content;
  if (isPlainObject(content) && Array.isArray(content.parts)) {
    content.parts = content.parts.map((part: unknown) => {
      if (!isPlainObject(part)) return part;
      const { thought_signature: _s, ...p } = part;
      if (isPlainObject(p.function_call)) {
        const { id: _c, ...call } = p.function_call;
        p.function_call = call;
      }
      if (isPlainObject(p.function_response)) {
        const { id: _r, ...response } = p.function_response;
        p.function_response = response;
      }
      return p;
    });
  }
  // An LlmAgent's final event carries its validated structured `output` here (typed for library
  // users); adk-python sets `output` on workflow node events only. Outside a node it is not compared.
  if (!isPlainObject(rest.node_info)) delete rest.output;
  if (isPlainObject(rest.actions)) {
    const { requested_auth_configs: _a, requested_tool_confirmations: _c, ...actions } = rest.actions;
    actions.state_delta = withoutModeKeys(actions.state_delta);
    rest.actions = actions;
  }
  return pruneDefaults(rest);
}

/** The session's own fields without ids, times and events (compared one by one). */
export function comparableSession(session: SessionFile): unknown {
  const { id: _id, last_update_time: _t, events: _e, ...rest } = structuredClone(session);
  return pruneDefaults({ ...rest, state: withoutModeKeys(rest.state ?? {}) });
}

/** The first difference between the events and session of a replay and the recorded ones, or undefined. */
export function compareSessions(recorded: SessionFile, actual: SessionFile): string | undefined {
  const want = recorded.events ?? [];
  const got = actual.events ?? [];
  const n = Math.min(want.length, got.length);
  for (let i = 0; i < n; i++) {
    const diff = describeDifference(
      `Event ${i} (author ${String(want[i]?.author)})`,
      comparableEvent(want[i]),
      comparableEvent(got[i]),
    );
    if (diff) return diff;
  }
  if (want.length !== got.length) {
    const extra = got.length > want.length ? got.slice(n) : want.slice(n);
    return `Event count differs: ${want.length} recorded, ${got.length} actual. ${got.length > want.length ? 'Extra actual' : 'Missing'} events:\n\`\`\`yaml\n${toYaml(extra.map(comparableEvent)).trimEnd()}\n\`\`\``;
  }
  return describeDifference('The session', comparableSession(recorded), comparableSession(actual));
}

interface Harness {
  client: ServerClient;
  plugin: ConformancePlugin;
  version: string;
  close(): Promise<void>;
}

async function startServer(
  agentsDir: string,
  mode: 'record' | 'replay',
  requestComparison: RequestComparison,
): Promise<Harness> {
  const plugin = new ConformancePlugin({ requestComparison });
  registerModelsFromEnv(defaultModelRegistry);
  const provider =
    mode === 'replay'
      ? replayModelProvider(new ReplayModel(plugin), capabilitiesBeneathReplay(defaultModelRegistry))
      : undefined;
  // In front of every provider, the ones apps register when they load included.
  if (provider) defaultModelRegistry.register(provider, { tier: 'override' });
  const { createAdkServer, listenAdkServer } = await import('@adk/server');
  const warnings: string[] = [];
  const server = await createAdkServer({
    apps: createAppLoader(agentsDir),
    plugins: [plugin],
    sessionService: new InMemorySessionService(),
    artifactService: new InMemoryArtifactService(),
    memoryService: new InMemoryMemoryService(),
    a2a: false,
    tracing: false,
    runWorker: false,
    logger: { info: () => {}, warn: (line) => warnings.push(line), error: (line) => warnings.push(line) },
  });
  const listening = await listenAdkServer(server, { host: '127.0.0.1', port: 0 });
  const client = new ServerClient(listening.url.replace(/\/$/, ''));
  return {
    client,
    plugin,
    version: await client.version(),
    close: async () => {
      await listening.close();
      if (provider) defaultModelRegistry.unregister(provider.name);
    },
  };
}

async function runMessages(
  harness: Harness,
  item: ConformanceCase & { spec: TestSpec },
  sessionId: string,
  configKey: string,
  streaming: StreamingMode,
): Promise<void> {
  const callIds = new Map<string, string>();
  for (let index = 0; index < item.spec.user_messages.length; index++) {
    const message = item.spec.user_messages[index];
    const events = await harness.client.runSse({
      appName: item.spec.agent,
      userId: CONFORMANCE_USER,
      sessionId,
      newMessage: userContent(item.spec, index, callIds),
      streaming: streaming === 'sse',
      stateDelta: {
        ...(message?.state_delta ?? {}),
        [configKey]: { dir: item.dir, user_message_index: index, streaming_mode: streaming },
      },
    });
    collectCallIds(events, callIds);
  }
}

async function recordCase(
  harness: Harness,
  item: ConformanceCase & { spec: TestSpec },
  streaming: StreamingMode,
): Promise<void> {
  const files = generatedFiles(streaming);
  await rm(join(item.dir, files.recordings), { force: true });
  await rm(join(item.dir, files.session), { force: true });
  const sessionId = await harness.client.createSession(item.spec.agent, item.spec.initial_state);
  try {
    await runMessages(harness, item, sessionId, RECORDINGS_CONFIG_KEY, streaming);
    const session = sessionToFile(await harness.client.getSession(item.spec.agent, sessionId));
    await writeFile(join(item.dir, files.session), toYaml(session));
  } finally {
    await harness.client.deleteSession(item.spec.agent, sessionId).catch(() => undefined);
  }
}

async function replayCase(
  harness: Harness,
  item: ConformanceCase & { spec: TestSpec },
  streaming: StreamingMode,
): Promise<string | undefined> {
  const files = generatedFiles(streaming);
  // Both goldens are read (and checked) before anything runs: a malformed file fails the case by name.
  const recorded = await readSessionFile(join(item.dir, files.session));
  await readRecordings(join(item.dir, files.recordings));
  harness.plugin.takeFailures(item.dir);
  const sessionId = await harness.client.createSession(item.spec.agent, item.spec.initial_state);
  try {
    let runError: unknown;
    try {
      await runMessages(harness, item, sessionId, REPLAY_CONFIG_KEY, streaming);
    } catch (error) {
      runError = error;
    }
    const [first] = harness.plugin.takeFailures(item.dir);
    if (first) return `Replay verification failed: ${first.message}`;
    if (runError !== undefined) return `Replay failed: ${describeError(runError)}`;
    const actual = sessionToFile(await harness.client.getSession(item.spec.agent, sessionId));
    return compareSessions(recorded, actual);
  } finally {
    await harness.client.deleteSession(item.spec.agent, sessionId).catch(() => undefined);
  }
}

/**
 * Records or replays conformance cases against this package's server: it serves `agentsDir` on
 * 127.0.0.1 (a free port, in-memory sessions) with the record/replay plugin, and drives it over
 * HTTP as adk-python's `adk conformance` does: create the session with `initial_state`, one
 * `/run_sse` per user message with the mode's config in `state_delta`, fetch the session, delete it.
 */
export async function runConformance(options: ConformanceRunOptions): Promise<ConformanceRun> {
  const log = options.log ?? (() => {});
  const requestComparison = options.requestComparison ?? 'strict';
  const modes = options.streamingModes ?? (options.mode === 'record' ? ['none'] : ['none', 'sse']);
  const cases = await discoverCases(options.testPaths, options.filter);
  const agentsDir = resolve(options.agentsDir);
  const harness = await startServer(agentsDir, options.mode, requestComparison);
  const results: CaseResult[] = [];
  try {
    for (const streaming of modes) {
      for (const item of cases) {
        const id = `${item.category}/${item.name}`;
        const base = {
          category: item.category,
          name: item.name,
          dir: item.dir,
          description: item.spec?.description,
          streaming,
        };
        if (!item.spec) {
          results.push({ ...base, status: 'failed', message: describeError(item.loadError) });
          log(`✗ ${id} [${streaming}]: ${describeError(item.loadError)}`);
          continue;
        }
        const spec = item.spec;
        const ready = { ...item, spec };
        if (options.mode === 'record') {
          try {
            await recordCase(harness, ready, streaming);
            results.push({ ...base, status: 'recorded' });
            log(`recorded ${id} [${streaming}]`);
          } catch (error) {
            results.push({ ...base, status: 'failed', message: describeError(error) });
            log(`✗ ${id} [${streaming}]: ${describeError(error)}`);
          }
          continue;
        }
        if (!existsSync(join(item.dir, generatedFiles(streaming).recordings))) {
          results.push({ ...base, status: 'skipped', message: `no ${generatedFiles(streaming).recordings}` });
          log(`- ${id} [${streaming}]: skipped (no recordings)`);
          continue;
        }
        let failure: string | undefined;
        try {
          failure = await replayCase(harness, ready, streaming);
        } catch (error) {
          failure = describeError(error);
        }
        results.push({
          ...base,
          status: failure ? 'failed' : 'passed',
          ...(failure ? { message: failure } : {}),
        });
        log(failure ? `✗ ${id} [${streaming}]\n${failure}` : `✓ ${id} [${streaming}]`);
      }
    }
  } finally {
    await harness.close();
  }
  return {
    mode: options.mode,
    requestComparison,
    agentsDir,
    testPaths: options.testPaths.map((p) => resolve(p)),
    version: harness.version,
    results,
  };
}

/** Where a case is, relative to the working directory, for reports. */
export function caseLabel(result: CaseResult): string {
  return `${result.category}/${result.name}`;
}
