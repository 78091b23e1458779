import type { BaseAgent } from '../agents/base-agent.js';
import type { RunConfig } from '../agents/run-config.js';
import { type Content, contentText, userContent } from '../events/content.js';
import { type Event, isFinalResponse } from '../events/event.js';
import { guardrailTrippedFrom } from '../guardrails/guardrail.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import type { Session } from '../sessions/session.js';
import { Runner, type RunnerOptions } from './runner.js';

export interface RunAgentOptions extends Partial<Omit<RunnerOptions, 'agent'>> {
  userId?: string;
  sessionId?: string;
  runConfig?: RunConfig;
  signal?: AbortSignal;
  stateDelta?: Record<string, unknown>;
}

export interface RunAgentResult {
  /** Every event of the invocation, in order (partial events included when streaming). */
  events: Event[];
  /** The text of the last final response, or '' when there was none (a workflow: its output as text). */
  text: string;
  /** A workflow's output (the agent is a `Workflow` and it finished). */
  output?: unknown;
  /** The error of the last error event, if the run ended with one. */
  error?: { code: string; message: string };
  session: Session;
}

/**
 * Runs an agent on one message and collects the result — for scripts and tests. Uses an in-memory
 * session service unless one is given.
 */
export async function runAgent(
  agent: BaseAgent,
  message: string | Content,
  options: RunAgentOptions = {},
): Promise<RunAgentResult> {
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
  for (const e of events) {
    if (e.author !== 'user' && !e.partial && isFinalResponse(e) && e.content) text = contentText(e.content);
    if (e.errorCode) error = { code: e.errorCode, message: e.errorMessage ?? e.errorCode };
    const info = e.nodeInfo;
    // The record of the workflow's own run (`name@n`, no parent path) carries its output.
    if (info && !info.path.includes('/') && info.outputFor?.includes(info.path) && e.output !== undefined) {
      output = e.output;
      text = typeof output === 'string' ? output : JSON.stringify(output);
    }
  }
  const session = await sessionService.getSession({ appName: runner.appName, userId, sessionId });
  return {
    events,
    text,
    ...(output !== undefined ? { output } : {}),
    ...(error ? { error } : {}),
    session: session as Session,
  };
}

/** Runs an agent on one message and returns the final text; throws `GuardrailTripped` when a guardrail stopped it. */
export async function runAgentText(
  agent: BaseAgent,
  message: string | Content,
  options?: RunAgentOptions,
): Promise<string> {
  const result = await runAgent(agent, message, options);
  // A tripwire is not an answer: library users get the typed error.
  const tripped = result.events.map(guardrailTrippedFrom).find((e) => e !== undefined);
  if (tripped) throw tripped;
  return result.text;
}
