import {
  type BaseAgent,
  type Content,
  type Event,
  eventFunctionCalls,
  eventFunctionResponses,
  type FunctionCall,
  InMemorySessionService,
  isAdkError,
  isFinalResponse,
  newId,
  type Plugin,
  type RunConfig,
  Runner,
  type SessionService,
} from '@adk/core';
import type { A2aMetadata, Part, TaskState } from '../protocol/types.js';
import type { AgentExecutor, AgentUpdate, ExecutionContext } from '../server/agent-executor.js';
import {
  a2aPartsToAdk,
  a2aText,
  adkContentToA2aParts,
  adkPartToA2a,
  functionCallOfPart,
  isLongRunningCallPart,
  REQUEST_CREDENTIAL,
  toA2aJson,
} from './part-conversion.js';

export interface AdkAgentExecutorOptions {
  /** The runner to drive; its session service keeps the conversations (one session per context). */
  runner?: Runner;
  /** Or the agent, run by a runner built here (in-memory sessions unless `sessionService` is given). */
  agent?: BaseAgent;
  appName?: string;
  sessionService?: SessionService;
  plugins?: Plugin[];
  /** The ADK user id of a request. Default: the authenticated caller's id, else `'a2a'`. */
  userId?: (context: ExecutionContext) => string;
  runConfig?: RunConfig;
  /** Name of the artifact that carries the final answer. Default `'response'`. */
  artifactName?: string;
}

/** Metadata key on status updates naming the ADK agent that authored the event. */
export const ADK_AUTHOR_KEY = 'adk_author';
/** Metadata key on failed status updates carrying the ADK error code. */
export const ADK_ERROR_CODE_KEY = 'adk_error_code';
/** Status metadata key: the guardrail records of a run a guardrail stopped (`GUARDRAIL_TRIPPED`). */
export const ADK_GUARDRAILS_KEY = 'adk_guardrails';
/** Where core records guardrail decisions on an event (`GUARDRAILS_METADATA_KEY` of @adk/core). */
const GUARDRAILS_METADATA_KEY = 'adkGuardrails';
/** Metadata keys carrying a workflow event's `output`, `nodeInfo` and `actions.route`, unchanged. */
export const ADK_OUTPUT_KEY = 'adk_output';
export const ADK_NODE_INFO_KEY = 'adk_node_info';
export const ADK_ROUTE_KEY = 'adk_route';

/** The workflow fields of an event as status-update metadata (absent fields stay absent). */
export function workflowMetadata(event: Event): A2aMetadata {
  const metadata: A2aMetadata = {};
  if (event.output !== undefined) metadata[ADK_OUTPUT_KEY] = toA2aJson(event.output);
  if (event.nodeInfo) metadata[ADK_NODE_INFO_KEY] = toA2aJson(event.nodeInfo);
  if (event.actions.route !== undefined) metadata[ADK_ROUTE_KEY] = toA2aJson(event.actions.route);
  return metadata;
}

/**
 * Serves an ADK agent (or runner) as an A2A agent. The A2A context id is the ADK session id; each
 * event becomes a `working` status update; the final response becomes an artifact and the task
 * completes; unanswered long-running calls make the task `input-required` (`auth-required` for
 * credential requests); an error event fails the task; canceling the task aborts the run.
 */
export class AdkAgentExecutor implements AgentExecutor {
  readonly runner: Runner;
  readonly #options: AdkAgentExecutorOptions;

  constructor(options: AdkAgentExecutorOptions) {
    this.#options = options;
    if (options.runner) this.runner = options.runner;
    else if (options.agent) {
      this.runner = new Runner({
        appName: options.appName ?? options.agent.name,
        agent: options.agent,
        sessionService: options.sessionService ?? new InMemorySessionService(),
        ...(options.plugins ? { plugins: options.plugins } : {}),
      });
    } else throw new TypeError('AdkAgentExecutor needs an agent or a runner');
  }

  async *execute(context: ExecutionContext): AsyncGenerator<AgentUpdate> {
    const userId = this.#options.userId?.(context) ?? context.caller?.id ?? 'a2a';
    const sessionId = context.contextId;
    await this.#ensureSession(userId, sessionId);

    const pending = new Map<string, FunctionCall>();
    // Each long-running call event's parts, sent with the interrupted status while a call waits.
    const interrupts: { ids: Set<string>; parts: Part[] }[] = [];
    let held: Event | undefined;
    let workflowOutput: Event | undefined;
    let failure: Event | undefined;

    // The task exists (and streams) from the start, whatever the agent does first.
    yield { kind: 'status', state: 'TASK_STATE_WORKING' };
    const events = this.runner.run({
      userId,
      sessionId,
      newMessage: toUserContent(context),
      signal: context.signal,
      ...(this.#options.runConfig ? { runConfig: this.#options.runConfig } : {}),
    });
    for await (const event of events) {
      if (event.author === 'user' || event.partial) continue;
      if (held) {
        yield working(held);
        held = undefined;
      }
      if (event.errorCode) {
        failure = event;
        continue;
      }
      const longRunning = new Set(event.longRunningToolIds ?? []);
      if (longRunning.size > 0) {
        // The call waits for the caller: it is sent with the interrupted status, not as progress.
        for (const call of eventFunctionCalls(event))
          if (longRunning.has(call.id)) pending.set(call.id, call);
        const parts: Part[] = [];
        for (const part of event.content?.parts ?? []) {
          const converted = adkPartToA2a(part, longRunning);
          if (converted) parts.push(converted);
        }
        interrupts.push({ ids: new Set(longRunning), parts });
        continue;
      }
      // A long-running call answered at once (an interim result) no longer waits for the caller.
      if (pending.size > 0)
        for (const r of eventFunctionResponses(event))
          if (pending.delete(r.id)) for (const i of interrupts) i.ids.delete(r.id);
      if (isFinalResponse(event) && event.content && event.content.parts.length > 0) {
        // Possibly the answer: held back until another event shows it was not the last word.
        held = event;
        continue;
      }
      if (event.content && event.content.parts.length > 0) yield working(event);
      // A workflow node's record (its output, route, path) without content still reaches the caller.
      else if (event.nodeInfo) {
        yield working(event);
        const info = event.nodeInfo;
        // The workflow's output rides on its terminal node's event (docs/architecture.md §5.4).
        if (info.outputFor?.some((path) => !path.includes('/'))) workflowOutput = event;
      }
    }

    if (context.signal.aborted) return; // the server marks the task canceled
    if (failure) {
      yield {
        kind: 'status',
        state: 'TASK_STATE_FAILED',
        parts: [{ text: failure.errorMessage ?? failure.errorCode ?? 'The agent failed' }],
        metadata: {
          [ADK_ERROR_CODE_KEY]: failure.errorCode ?? 'UNKNOWN',
          [ADK_AUTHOR_KEY]: failure.author,
          // Which guardrail stopped the run and why (never the text it stopped).
          ...(failure.customMetadata?.[GUARDRAILS_METADATA_KEY]
            ? { [ADK_GUARDRAILS_KEY]: failure.customMetadata[GUARDRAILS_METADATA_KEY] as A2aMetadata[string] }
            : {}),
        },
      };
      return;
    }
    if (pending.size > 0) {
      const state: TaskState = [...pending.values()].some((c) => c.name === REQUEST_CREDENTIAL)
        ? 'TASK_STATE_AUTH_REQUIRED'
        : 'TASK_STATE_INPUT_REQUIRED';
      const heldParts = held ? adkContentToA2aParts(held.content) : [];
      const waiting = interrupts.filter((i) => i.ids.size > 0).flatMap((i) => i.parts);
      yield { kind: 'status', state, parts: [...heldParts, ...waiting] };
      return;
    }
    if (!held && workflowOutput?.output !== undefined) {
      // A workflow's answer is its output: text as text, anything else as data.
      const output = workflowOutput.output;
      yield {
        kind: 'artifact',
        artifact: {
          artifactId: newId(),
          name: this.#options.artifactName ?? 'response',
          parts: [typeof output === 'string' ? { text: output } : { data: toA2aJson(output) }],
          metadata: workflowMetadata(workflowOutput),
        },
        lastChunk: true,
      };
    }
    if (held) {
      yield {
        kind: 'artifact',
        artifact: {
          artifactId: newId(),
          name: this.#options.artifactName ?? 'response',
          parts: adkContentToA2aParts(held.content),
          ...(held.nodeInfo ? { metadata: workflowMetadata(held) } : {}),
        },
        lastChunk: true,
      };
    }
    yield { kind: 'status', state: 'TASK_STATE_COMPLETED' };
  }

  async #ensureSession(userId: string, sessionId: string): Promise<void> {
    const key = { appName: this.runner.appName, userId, sessionId };
    const service = this.runner.sessionService;
    if (await service.getSession({ ...key, numRecentEvents: 0 })) return;
    try {
      await service.createSession(key);
    } catch (error) {
      // Another task of the same context created it first.
      if (!isAdkError(error, 'ALREADY_EXISTS')) throw error;
    }
  }
}

function working(event: Event): AgentUpdate {
  const metadata: A2aMetadata = { [ADK_AUTHOR_KEY]: event.author, ...workflowMetadata(event) };
  return {
    kind: 'status',
    state: 'TASK_STATE_WORKING',
    parts: adkContentToA2aParts(event.content, new Set(event.longRunningToolIds ?? [])),
    metadata,
  };
}

/**
 * The user's A2A message as ADK content. A message that continues a task waiting on long-running
 * calls answers them: explicit `function_response` data parts are passed through; otherwise the
 * message's first untyped data object (or `{ result: <text> }`) becomes the response to every
 * pending call.
 */
export function toUserContent(context: ExecutionContext): Content {
  const parts = a2aPartsToAdk(context.message.parts);
  const waitingOn = (context.task?.status.message?.parts ?? [])
    .filter(isLongRunningCallPart)
    .map(functionCallOfPart)
    .filter((c) => c !== undefined);
  const interrupted =
    context.task?.status.state === 'TASK_STATE_INPUT_REQUIRED' ||
    context.task?.status.state === 'TASK_STATE_AUTH_REQUIRED';
  if (!interrupted || waitingOn.length === 0 || parts.some((p) => p.functionResponse)) {
    return { role: 'user', parts };
  }
  const data = context.message.parts.find(
    (p) => p.data !== undefined && typeof p.data === 'object' && p.data !== null && !Array.isArray(p.data),
  )?.data as Record<string, unknown> | undefined;
  const response = data ?? { result: a2aText(context.message.parts) };
  return {
    role: 'user',
    parts: waitingOn.map((call) => ({ functionResponse: { id: call.id, name: call.name, response } })),
  };
}
