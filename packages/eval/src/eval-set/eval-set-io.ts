import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { type Content, formatIssues, newId, type Part, tryParseJson } from '@adk/core';
import { EvalFormatError } from '../errors.js';
import { camelToSnake, toCamelKeys, toSnakeKeys } from './keys.js';
import { evalSchemas } from './schemas.js';
import type { EvalCase, EvalSet, IntermediateData, Invocation, InvocationEvents } from './types.js';

/** `snake` is how adk-python writes files; `camel` is how its HTTP API answers. */
export type KeyStyle = 'snake' | 'camel';

export interface ParseEvalSetOptions {
  /** Id for a legacy `.test.json` set (which has none); default `legacy_eval_set`. */
  evalSetId?: string;
  /**
   * The session a legacy list of turns starts from (what adk-python's `AgentEvaluator` takes as
   * `initial_session_file`): its `app_name`, `user_id` and `state` become the case's session input.
   * Only for that format; the other formats carry their own.
   */
  initialSession?: unknown;
}

export interface LoadEvalSetFileOptions {
  /**
   * A session file (`initial.session.json`: `{app_name, user_id, state, …}`) that a legacy list of
   * turns starts from, as adk-python's `AgentEvaluator.evaluate(initial_session_file=…)`.
   */
  initialSessionFile?: string;
}

/** The eval set id adk-python derives from a file name (`x.evalset.json`, `x.test.json` → `x`). */
export function evalSetIdFromPath(path: string): string {
  return basename(path).replace(/(\.evalset|\.test)?\.json$/, '');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A zod issue path as the file spells it: `[1].expected_tool_use[0].tool_name`. */
function legacyIssues(issues: { path: PropertyKey[]; message: string }[]): string {
  return issues
    .map((issue) => {
      const path = issue.path
        .map((key) => (typeof key === 'number' ? `[${key}]` : `.${camelToSnake(String(key))}`))
        .join('')
        .replace(/^\./, '');
      return `${path || '(root)'}: ${issue.message}`;
    })
    .join('; ');
}

/**
 * Reads an eval set in adk-python's EvalSet JSON (snake_case or camelCase keys), or in one of its
 * two legacy `.test.json` formats, converted the way adk-python converts them:
 * - a list of named cases, `[{name, data: [turn…], initial_session}]` (adk-python's
 *   `LocalEvalSetsManager`), one eval case per entry;
 * - a list of turns, `[{query, expected_tool_use: [{tool_name, tool_input}], reference}]` (adk-python's
 *   `AgentEvaluator`), one eval case whose invocations are the turns in order, with the set's id as
 *   its eval id.
 * Which legacy format a list is in is decided by its first entry (`name`/`data` → named cases).
 */
export function parseEvalSet(value: unknown, options: ParseEvalSetOptions = {}): EvalSet {
  const camel = toCamelKeys(value);
  const schemas = evalSchemas();
  const parsed = schemas.evalSet.safeParse(camel);
  if (parsed.success) {
    if (options.initialSession !== undefined)
      throw new EvalFormatError(
        'An initial session applies only to a legacy list of turns; an EvalSet file carries its own (session_input)',
      );
    return parsed.data as unknown as EvalSet;
  }
  if (Array.isArray(camel)) {
    const evalSetId = options.evalSetId ?? 'legacy_eval_set';
    const first: unknown = camel[0];
    if (camel.length > 0 && !(isPlainObject(first) && ('name' in first || 'data' in first))) {
      const turns = schemas.legacyTurns.safeParse(camel);
      if (!turns.success)
        throw new EvalFormatError(
          `Not an eval set (legacy list of turns {query, expected_tool_use, reference}): ${legacyIssues(turns.error.issues)}`,
        );
      const session =
        options.initialSession === undefined ? undefined : sessionInputOf(options.initialSession);
      return fromLegacy([{ name: evalSetId, data: turns.data, initialSession: session }], evalSetId);
    }
    if (options.initialSession !== undefined)
      throw new EvalFormatError(
        'An initial session applies only to a legacy list of turns; a list of named cases carries its own (initial_session)',
      );
    const legacy = schemas.legacyEvalSet.safeParse(camel);
    if (legacy.success) return fromLegacy(legacy.data, evalSetId);
    throw new EvalFormatError(
      `Not an eval set (legacy list of named cases {name, data, initial_session}): ${legacyIssues(legacy.error.issues)}`,
    );
  }
  throw new EvalFormatError(`Not an eval set: ${formatIssues(parsed.error.issues)}`);
}

/** A session file's `app_name`, `user_id` and `state` (what adk-python keeps of it). */
function sessionInputOf(value: unknown): LegacyCase['initialSession'] {
  const session = toCamelKeys(value);
  if (!isPlainObject(session)) throw new EvalFormatError('The initial session is not a JSON object');
  const { appName, userId, state } = session;
  const wrong = [
    appName !== undefined && typeof appName !== 'string' && 'app_name is not a string',
    userId !== undefined && typeof userId !== 'string' && 'user_id is not a string',
    state !== undefined && !isPlainObject(state) && 'state is not an object',
  ].filter((w): w is string => typeof w === 'string');
  if (wrong.length > 0) throw new EvalFormatError(`Not a session: ${wrong.join('; ')}`);
  return {
    ...(typeof appName === 'string' ? { appName } : {}),
    ...(typeof userId === 'string' ? { userId } : {}),
    ...(isPlainObject(state) ? { state } : {}),
  };
}

/** {@link parseEvalSet} on JSON text; a syntax error is an {@link EvalFormatError}. */
export function parseEvalSetJson(text: string, options?: ParseEvalSetOptions): EvalSet {
  return parseEvalSet(parseJsonText(text, 'eval set'), options);
}

/** Reads an eval set file in any of the formats {@link parseEvalSet} reads; errors name the file. */
export async function loadEvalSetFile(path: string, options: LoadEvalSetFileOptions = {}): Promise<EvalSet> {
  const text = await readFile(path, 'utf8');
  let initialSession: unknown;
  if (options.initialSessionFile !== undefined) {
    const sessionText = await readFile(options.initialSessionFile, 'utf8');
    try {
      initialSession = parseJsonText(sessionText, 'initial session');
    } catch (error) {
      throw new EvalFormatError(`${options.initialSessionFile}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  try {
    return parseEvalSetJson(text, {
      evalSetId: evalSetIdFromPath(path),
      ...(initialSession !== undefined ? { initialSession } : {}),
    });
  } catch (error) {
    if (error instanceof EvalFormatError)
      throw new EvalFormatError(`${path}: ${error.message}`, { cause: error });
    throw error;
  }
}

export function parseJsonText(text: string, what: string): unknown {
  const value = tryParseJson(text);
  if (value === undefined) throw new EvalFormatError(`The ${what} is not valid JSON`);
  return value;
}

function textContent(role: 'user' | 'model', text: string): Content {
  return { role, parts: [{ text }] };
}

type LegacyCase = {
  name: string;
  data: {
    query: string;
    reference: string;
    expectedToolUse: { toolName: string; toolInput: Record<string, unknown> }[];
    expectedIntermediateAgentResponses: { author: string; text: string }[];
  }[];
  initialSession?:
    | {
        state?: Record<string, unknown> | undefined;
        appName?: string | undefined;
        userId?: string | undefined;
      }
    | null
    | undefined;
};

function fromLegacy(cases: LegacyCase[], evalSetId: string): EvalSet {
  const now = Date.now() / 1000;
  return {
    evalSetId,
    name: evalSetId,
    creationTimestamp: now,
    evalCases: cases.map((c): EvalCase => {
      const evalCase: EvalCase = {
        evalId: c.name,
        creationTimestamp: now,
        conversation: c.data.map(
          (turn): Invocation => ({
            invocationId: newId(),
            userContent: textContent('user', turn.query),
            finalResponse: textContent('model', turn.reference),
            intermediateData: {
              toolUses: turn.expectedToolUse.map((t) => ({ id: '', name: t.toolName, args: t.toolInput })),
              toolResponses: [],
              intermediateResponses: turn.expectedIntermediateAgentResponses.map((r): [string, Part[]] => [
                r.author,
                [{ text: r.text }],
              ]),
            },
            creationTimestamp: now,
          }),
        ),
      };
      // adk-python only builds a session input when `initial_session` is non-empty.
      if (c.initialSession && Object.keys(c.initialSession).length > 0) {
        evalCase.sessionInput = {
          appName: c.initialSession.appName ?? '',
          userId: c.initialSession.userId ?? '',
          state: c.initialSession.state ?? {},
        };
      }
      return evalCase;
    }),
  };
}

// --- writing -------------------------------------------------------------------------------

function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  );
}

/** Drops what adk-python leaves out of its files (`exclude_none`, `exclude_defaults`). */
function prune(value: Record<string, unknown>, defaults: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined || v === null) continue;
    if (key in defaults) {
      const d = defaults[key];
      if (
        Array.isArray(d) ? Array.isArray(v) && v.length === 0 : isEmptyObject(d) ? isEmptyObject(v) : v === d
      )
        continue;
    }
    out[key] = v;
  }
  return out;
}

function writeContent(content: Content | undefined): unknown {
  if (!content) return undefined;
  return {
    ...content,
    parts: content.parts.map((part) => {
      const out: Record<string, unknown> = { ...part };
      if (part.functionCall) out.functionCall = prune({ ...part.functionCall }, { id: '' });
      if (part.functionResponse) out.functionResponse = prune({ ...part.functionResponse }, { id: '' });
      return out;
    }),
  };
}

function writeIntermediate(data: Invocation['intermediateData']): unknown {
  if (!data) return undefined;
  if ('invocationEvents' in data) {
    const events = (data as InvocationEvents).invocationEvents;
    return {
      invocationEvents: events.map((e) => prune({ ...e, content: writeContent(e.content) }, {})),
    };
  }
  const d = data as IntermediateData;
  return prune(
    {
      ...d,
      toolUses: d.toolUses.map((c) => prune({ ...c }, { id: '' })),
      toolResponses: d.toolResponses.map((r) => prune({ ...r }, { id: '' })),
    },
    { toolUses: [], toolResponses: [], intermediateResponses: [] },
  );
}

export function writeInvocation(invocation: Invocation): Record<string, unknown> {
  return prune(
    {
      ...invocation,
      userContent: writeContent(invocation.userContent),
      finalResponse: writeContent(invocation.finalResponse),
      intermediateData: writeIntermediate(invocation.intermediateData),
    },
    { invocationId: '', creationTimestamp: 0 },
  );
}

function writeEvalCase(evalCase: EvalCase): Record<string, unknown> {
  return prune(
    {
      ...evalCase,
      conversation: evalCase.conversation?.map(writeInvocation),
      sessionInput: evalCase.sessionInput ? prune({ ...evalCase.sessionInput }, { state: {} }) : undefined,
      conversationScenario: evalCase.conversationScenario
        ? prune({ ...evalCase.conversationScenario }, {})
        : undefined,
    },
    { creationTimestamp: 0, finalSessionState: {} },
  );
}

/** The eval set as a JSON-ready object, without defaults, in the given key style. */
export function serializeEvalSet(evalSet: EvalSet, options: { keys?: KeyStyle } = {}): unknown {
  const camel = prune(
    { ...evalSet, evalCases: evalSet.evalCases.map(writeEvalCase) },
    { creationTimestamp: 0 },
  );
  return options.keys === 'camel' ? camel : toSnakeKeys(camel);
}

/** Writes an eval set file as adk-python does (snake_case, 2-space indent). */
export async function writeEvalSetFile(
  path: string,
  evalSet: EvalSet,
  options: { keys?: KeyStyle } = {},
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify(serializeEvalSet(evalSet, options), null, 2));
}
