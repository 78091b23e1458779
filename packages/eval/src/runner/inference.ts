import {
  type BaseAgent,
  type Content,
  type Event,
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemorySessionService,
  isFinalResponse,
  newId,
  Runner,
  type RunnerOptions,
  type Session,
  type SessionService,
} from '@adk/core';
import type { EvalCase, Invocation, InvocationEvent } from '../eval-set/types.js';
import type { UserSimulator } from './user-simulator.js';

export interface InferenceOptions {
  agent: BaseAgent;
  appName: string;
  sessionService?: SessionService;
  /** Extra runner options (plugins, artifact service, model registry, ...). */
  runnerOptions?: Partial<Omit<RunnerOptions, 'agent' | 'appName' | 'sessionService'>>;
  userSimulator?: (evalCase: EvalCase) => UserSimulator;
  signal?: AbortSignal;
}

export interface InferenceResult {
  invocations: Invocation[];
  session: Session;
  userId: string;
  /** The last error event of the run, if any. */
  error?: string;
}

/** Turns one invocation's events into adk-python's Invocation (final response + the events before it). */
export function invocationFromEvents(userContent: Content, events: Event[], startedAt: number): Invocation {
  const agentEvents = events.filter((e) => e.author !== 'user' && !e.partial);
  let finalIndex = -1;
  for (let i = agentEvents.length - 1; i >= 0; i--) {
    const e = agentEvents[i] as Event;
    if (e.content && isFinalResponse(e)) {
      finalIndex = i;
      break;
    }
  }
  const intermediate: InvocationEvent[] = agentEvents
    .filter((e, i) => i !== finalIndex && e.content && e.content.parts.length > 0)
    .map((e) => ({
      author: e.author,
      content: e.content as Content,
      ...(e.usageMetadata ? { usageMetadata: e.usageMetadata } : {}),
    }));
  const final = finalIndex >= 0 ? agentEvents[finalIndex] : undefined;
  return {
    invocationId: events[0]?.invocationId ?? newId(),
    userContent,
    ...(final?.content ? { finalResponse: final.content } : {}),
    intermediateData: { invocationEvents: intermediate },
    creationTimestamp: startedAt / 1000,
    duration: (Date.now() - startedAt) / 1000,
  };
}

/**
 * Runs the agent through one eval case — the fixed user turns of its conversation, or a user
 * simulator for a conversation scenario — in a fresh session seeded with the case's initial state.
 */
export async function runEvalCase(evalCase: EvalCase, options: InferenceOptions): Promise<InferenceResult> {
  const sessionService = options.sessionService ?? new InMemorySessionService();
  const appName = evalCase.sessionInput?.appName || options.appName;
  const userId = evalCase.sessionInput?.userId || 'test_user_id';
  const sessionId = `___eval___session___${newId()}`;
  await sessionService.createSession({
    appName,
    userId,
    sessionId,
    state: { ...evalCase.sessionInput?.state },
  });
  // Tools that save artifacts or search memory work during evals too (in memory unless given).
  const runner = new Runner({
    artifactService: new InMemoryArtifactService(),
    memoryService: new InMemoryMemoryService(),
    ...options.runnerOptions,
    agent: options.agent,
    appName,
    sessionService,
  });
  const invocations: Invocation[] = [];
  const all: Event[] = [];
  let error: string | undefined;

  const turn = async (message: Content) => {
    const started = Date.now();
    const events: Event[] = [];
    for await (const event of runner.run({
      userId,
      sessionId,
      newMessage: message,
      ...(options.signal ? { signal: options.signal } : {}),
    })) {
      if (event.partial) continue;
      events.push(event);
      if (event.errorCode) error = `${event.errorCode}: ${event.errorMessage ?? ''}`;
    }
    all.push({ author: 'user', content: message } as Event, ...events.filter((e) => e.author !== 'user'));
    invocations.push(invocationFromEvents(message, events, started));
  };

  if (evalCase.conversation) {
    for (const expected of evalCase.conversation)
      await turn({ ...(structuredClone(expected.userContent) as Content), role: 'user' });
  } else if (evalCase.conversationScenario) {
    if (!options.userSimulator) throw new Error(`Eval case ${evalCase.evalId} needs a user simulator`);
    const simulator = options.userSimulator(evalCase);
    for (;;) {
      const next = await simulator.nextUserMessage(all, options.signal);
      if (next.status !== 'success') break;
      await turn(next.message);
    }
  }
  const session = (await sessionService.getSession({ appName, userId, sessionId })) as Session;
  return { invocations, session, userId, ...(error ? { error } : {}) };
}
