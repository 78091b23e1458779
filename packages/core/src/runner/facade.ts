import type { BaseAgent } from '../agents/base-agent.js';
import { LlmAgent } from '../agents/llm-agent.js';
import type { RunConfig } from '../agents/run-config.js';
import { AdkError, type AdkErrorCode, isAdkErrorCode } from '../errors/errors.js';
import { type Content, contentText, userContent } from '../events/content.js';
import { type Event, isFinalResponse } from '../events/event.js';
import { guardrailTrippedFrom } from '../guardrails/guardrail.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import type { Session } from '../sessions/session.js';
import type { StateSchema } from '../sessions/typed-state.js';
import { tryParseJson } from '../utils/json.js';
import { Runner, type RunnerOptions } from './runner.js';

export interface RunAgentOptions extends Partial<Omit<RunnerOptions, 'agent'>> {
  userId?: string;
  sessionId?: string;
  runConfig?: RunConfig;
  signal?: AbortSignal;
  stateDelta?: Record<string, unknown>;
  /**
   * A run whose last event is an error event rejects with a {@link RunFailedError} (default).
   * `false` resolves instead, with the error in `result.error`.
   */
  rejectOnError?: boolean;
}

/** `runAgent` options with a state schema: `result.state` is the session's state, typed and validated. */
export interface RunAgentOptionsWithState<TState extends object> extends RunAgentOptions {
  stateSchema: StateSchema<TState>;
}

/** The structured output type of an agent: an `LlmAgent`'s `outputSchema` output, else `unknown`. */
export type AgentOutput<A> = A extends LlmAgent<infer T, infer _S> ? T : unknown;

/** The state type of an agent: an `LlmAgent`'s `stateSchema` output, else `Record<string, unknown>`. */
export type AgentState<A> = A extends LlmAgent<infer _T, infer S> ? S : Record<string, unknown>;

/** `{ state }` in a `runAgent` result when the agent has a `stateSchema` (typed by it), else nothing. */
export type AgentStateResult<A> = string extends keyof AgentState<A> ? unknown : { state: AgentState<A> };

/**
 * An event whose `output` has a known type: the final event of an `LlmAgent` with an
 * `outputSchema` carries the validated output (`OutputEvent<AgentOutput<typeof agent>>`).
 */
export type OutputEvent<TOutput> = Event & { output?: TOutput };

/**
 * True for the final event of `agent` that carries its structured output; narrows `event.output`
 * to the agent's output type (for events read from `runner.run`, which is not typed by the agent).
 */
export function isOutputEventOf<A extends BaseAgent>(
  agent: A,
  event: Event,
): event is Event & { output: AgentOutput<A> } {
  return event.author === agent.name && !event.partial && event.output !== undefined;
}

export interface RunAgentResult<TOutput = unknown> {
  /** Every event of the invocation, in order (partial events included when streaming). */
  events: Event[];
  /** The text of the last final response, or '' when there was none (a workflow: its output as text). */
  text: string;
  /**
   * The structured output: an `LlmAgent` with an `outputSchema`, its final response parsed and
   * validated (typed by the schema); a `Workflow`, its output.
   */
  output?: TOutput;
  /**
   * The last final event of the run (an agent's final response, or a workflow's output event); its
   * `output` is typed like `output`.
   */
  finalEvent?: OutputEvent<TOutput>;
  /** The error of the last error event (when the run ended with it, only with `rejectOnError: false`). */
  error?: { code: string; message: string };
  session: Session;
}

/**
 * Runs an agent on one message and collects the result — for scripts and tests. Uses an in-memory
 * session service unless one is given. A configuration error (an unknown model, a provider not
 * registered, a missing key) throws before the run; a run that ends with an error event rejects
 * with a {@link RunFailedError} carrying its code.
 */
export async function runAgent<A extends BaseAgent, TState extends object>(
  agent: A,
  message: string | Content,
  options: RunAgentOptionsWithState<TState>,
): Promise<RunAgentResult<AgentOutput<A>> & { state: TState }>;
export async function runAgent<A extends BaseAgent>(
  agent: A,
  message: string | Content,
  options?: RunAgentOptions,
): Promise<RunAgentResult<AgentOutput<A>> & AgentStateResult<A>>;
export async function runAgent<A extends BaseAgent>(
  agent: A,
  message: string | Content,
  options: RunAgentOptions & { stateSchema?: StateSchema<object> } = {},
): Promise<RunAgentResult<AgentOutput<A>> & { state?: object }> {
  const sessionService = options.sessionService ?? new InMemorySessionService();
  const runner = new Runner({
    ...options,
    appName: options.appName ?? agent.name,
    agent,
    sessionService,
    autoCreateSession: options.autoCreateSession ?? true,
  });
  const userId = options.userId ?? 'user';
  const sessionId = options.sessionId ?? 'session';
  const events: Event[] = [];
  for await (const event of runner.run({
    userId,
    sessionId,
    newMessage: typeof message === 'string' ? userContent(message) : message,
    ...(options.runConfig ? { runConfig: options.runConfig } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.stateDelta ? { stateDelta: options.stateDelta } : {}),
  })) {
    events.push(event);
  }
  let text = '';
  let error: RunAgentResult['error'];
  let output: unknown;
  let finalEvent: Event | undefined;
  for (const e of events) {
    if (e.author !== 'user' && !e.partial && isFinalResponse(e) && e.content) {
      text = contentText(e.content);
      finalEvent = e;
    }
    if (e.errorCode) error = { code: e.errorCode, message: e.errorMessage ?? e.errorCode };
    const info = e.nodeInfo;
    // The event that carries the output of the workflow's own run (`name@n`, no parent path): its
    // terminal node's (docs/architecture.md §5.4).
    if (info?.outputFor?.some((path) => !path.includes('/')) && e.output !== undefined) {
      output = e.output;
      finalEvent = e;
      text = typeof output === 'string' ? output : JSON.stringify(output);
    }
  }
  if (output === undefined && agent instanceof LlmAgent && agent.outputSchema) {
    const final = events.findLast(
      (e) => e.author === agent.name && !e.partial && isFinalResponse(e) && e.content,
    );
    // The flow put the validated output on the final event; older stored events may lack it.
    if (final?.output !== undefined) output = final.output;
    const raw = output === undefined && final?.content ? contentText(final.content) : '';
    const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(raw);
    const parsed = raw
      ? agent.outputSchema.safeParse(tryParseJson(fenced ? (fenced[1] ?? '') : raw))
      : undefined;
    if (parsed?.success) output = parsed.data;
  }
  const session = await sessionService.getSession({ appName: runner.appName, userId, sessionId });
  const result: RunAgentResult<AgentOutput<A>> = {
    events,
    text,
    ...(output !== undefined ? { output: output as AgentOutput<A> } : {}),
    ...(finalEvent ? { finalEvent: finalEvent as OutputEvent<AgentOutput<A>> } : {}),
    ...(error ? { error } : {}),
    session: session as Session,
  };
  const stateSchema = options.stateSchema ?? (agent instanceof LlmAgent ? agent.stateSchema : undefined);
  if (stateSchema) (result as { state?: unknown }).state = stateSchema.parse(result.session.state);
  // The run failed when it ended with an error event (a branch that failed while the run went on
  // to an answer leaves `result.error` set and resolves).
  const last = events.findLast((e) => !e.partial && e.author !== 'user');
  if (last?.errorCode !== undefined && options.rejectOnError !== false)
    throw guardrailTrippedFrom(last) ?? new RunFailedError(last, result);
  return result;
}

/**
 * A run that ended with an error event, as `runAgent`/`runAgentText` reject with it. Its `code` is
 * the event's `errorCode` when it is one of ours (`CANCELLED`, `API_CALL`, `OUTPUT_SCHEMA`…), else
 * `MODEL` with the model's own code (e.g. `SAFETY`) in `modelErrorCode`. `result` holds the events
 * and the session as they were.
 */
export class RunFailedError extends AdkError {
  readonly event: Event;
  readonly result: RunAgentResult<unknown>;
  /** The model's code when it is not an {@link AdkErrorCode} (a finish or block reason). */
  readonly modelErrorCode: string | undefined;

  constructor(event: Event, result: RunAgentResult<unknown>) {
    const raw = event.errorCode ?? 'INTERNAL';
    const code: AdkErrorCode = isAdkErrorCode(raw) ? raw : 'MODEL';
    super(code, event.errorMessage ?? raw, { details: { errorCode: raw, author: event.author } });
    this.event = event;
    this.result = result;
    this.modelErrorCode = isAdkErrorCode(raw) ? undefined : raw;
  }
}

/**
 * Runs an agent on one message and returns the final text; rejects with the run's typed error
 * (`RunFailedError`), or throws `GuardrailTripped` when a guardrail stopped it.
 */
export async function runAgentText(
  agent: BaseAgent,
  message: string | Content,
  options?: RunAgentOptions,
): Promise<string> {
  const result = await runAgent(agent, message, options);
  // A tripwire is not an answer: library users get the typed error (unless they asked for none).
  const tripped = result.events.map(guardrailTrippedFrom).find((e) => e !== undefined);
  if (tripped && options?.rejectOnError !== false) throw tripped;
  return result.text;
}
