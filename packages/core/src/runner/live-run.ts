// Runner.runLive's implementation, loaded on the first call of `runLive` (docs/decisions/0024-portable-core.md):
// an application that never runs a live session does not load it.
import type { BaseAgent } from '../agents/base-agent.js';
import { InvocationContext } from '../agents/invocation-context.js';
import type { ArtifactService } from '../artifacts/artifact-service.js';
import type { CredentialService } from '../auth/credential-service.js';
import { describeError, errorCodeOf } from '../errors/errors.js';
import { type Content, contentText } from '../events/content.js';
import { createEvent, type Event } from '../events/event.js';
import type { ContextCompressor } from '../flow/compression.js';
import { isStoredLiveEvent } from '../flow/live-flow.js';
import { GUARDRAILS_METADATA_KEY, isGuardrailTripped, trippedEventFields } from '../guardrails/guardrail.js';
import { checkLiveContent } from '../guardrails/run-guardrails.js';
import type { MemoryService } from '../memory/memory-service.js';
import type { ModelRegistry } from '../models/registry.js';
import type { PluginManager } from '../plugins/plugin-manager.js';
import type { Session, SessionService } from '../sessions/session.js';
import { TEMP_PREFIX } from '../sessions/state.js';
import { endSpan, loadTelemetry, NO_TRACE, startSpan } from '../telemetry/tracing.js';
import { newId } from '../utils/ids.js';
import { loadZod } from '../utils/zod.js';
import type { RunLiveParams } from './runner.js';

/** What a live session needs of its Runner. */
export interface LiveRunHost {
  readonly appName: string;
  readonly agent: BaseAgent;
  readonly sessionService: SessionService;
  readonly artifactService: ArtifactService | undefined;
  readonly memoryService: MemoryService | undefined;
  readonly credentialService: CredentialService;
  readonly pluginManager: PluginManager;
  readonly models: ModelRegistry;
  readonly contextCompression: ContextCompressor[] | undefined;
  /** The reason the session's own signal carries once it is over. */
  readonly runEnded: unknown;
  loadSession(params: { userId: string; sessionId: string }): Promise<Session>;
  findAgentToRun(session: Session, message: Content | undefined): BaseAgent;
  branchOf(agent: BaseAgent): string | undefined;
}

export async function* runLiveSession(
  host: LiveRunHost,
  params: RunLiveParams,
): AsyncGenerator<Event, void, undefined> {
  await Promise.all([loadTelemetry(), loadZod()]);
  await host.pluginManager.init();
  const session = await host.loadSession(params);
  const controller = new AbortController();
  const liveSignal = params.signal ?? params.abortSignal;
  const onAbort = () => controller.abort(liveSignal?.reason);
  if (liveSignal?.aborted) onAbort();
  else liveSignal?.addEventListener('abort', onAbort, { once: true });
  const signal = controller.signal;
  let afterRunDone = false;
  const invocationId = params.invocationId ?? `e-${newId()}`;
  const trace = startSpan('invocation', NO_TRACE, () => ({
    'gen_ai.conversation.id': session.id,
    'gen_ai.agent.name': host.agent.name,
    'adk.app_name': host.appName,
    'adk.user_id': params.userId,
    'adk.invocation_id': invocationId,
    'adk.live': true,
  }));
  const ctx = new InvocationContext({
    invocationId,
    appName: host.appName,
    userId: params.userId,
    session,
    sessionService: host.sessionService,
    artifactService: host.artifactService,
    memoryService: host.memoryService,
    credentialService: host.credentialService,
    pluginManager: host.pluginManager,
    models: host.models,
    runConfig: params.runConfig ?? {},
    signal,
    agent: host.agent,
    rootAgent: host.agent,
    shared: { llmCalls: 0, ended: false, tempState: {} },
    trace,
    contextCompression: host.contextCompression,
    liveRequestQueue: params.liveRequestQueue,
    liveResumptionHandle: { current: params.resumptionHandle },
  });
  let failure: unknown;
  try {
    const halt = await host.pluginManager.beforeRun({ context: ctx });
    if (halt) {
      yield await commitLive(
        host,
        ctx,
        createEvent({ invocationId, author: host.agent.name, content: halt }),
      );
    } else {
      const agent = host.findAgentToRun(session, undefined);
      for await (const event of agent.runLive(ctx.with({ agent, branch: host.branchOf(agent) }))) {
        yield await commitLive(host, ctx, event);
        if (signal.aborted) break;
      }
    }
    afterRunDone = true;
    await host.pluginManager.afterRun({ context: ctx });
  } catch (error) {
    // Aborting is how a live session is normally stopped: it ends without an error event.
    if (!signal.aborted) {
      failure = error;
      if (!host.pluginManager.isEmpty) await host.pluginManager.onRunError({ context: ctx, error });
      const event = createEvent({
        invocationId,
        author: ctx.agent.name,
        errorCode: errorCodeOf(error),
        errorMessage: describeError(error),
        ...(isGuardrailTripped(error) ? trippedEventFields(error) : {}),
      });
      try {
        yield await commitLive(host, ctx, event);
      } catch {
        yield event;
      }
    }
  } finally {
    liveSignal?.removeEventListener('abort', onAbort);
    controller.abort(host.runEnded);
    if (!afterRunDone) await host.pluginManager.afterRun({ context: ctx }).catch(() => undefined);
    endSpan(trace, failure);
  }
}

/**
 * onEvent plugins, then commit by the live rules (see isStoredLiveEvent). A transcription is
 * stored as its content text, without the stream-only transcription fields.
 */
async function commitLive(host: LiveRunHost, ctx: InvocationContext, event: Event): Promise<Event> {
  const replaced = host.pluginManager.isEmpty
    ? undefined
    : await host.pluginManager.onEvent({ context: ctx, event });
  let final = replaced ?? event;
  if (!isStoredLiveEvent(final)) return final;
  final = await guardLiveEvent(host, ctx, final);
  const delta = final.actions.stateDelta;
  for (const k in delta) if (k.startsWith(TEMP_PREFIX)) ctx.shared.tempState[k] = delta[k];
  if (final.inputTranscription || final.outputTranscription) {
    const { inputTranscription: _in, outputTranscription: _out, ...stored } = final;
    await host.sessionService.appendEvent(ctx.session, stored);
  } else await host.sessionService.appendEvent(ctx.session, final);
  return final;
}

/**
 * A live session's stored text (transcripts included) through the guardrails before it is
 * stored: the user's through the input guardrails, an agent's through its output guardrails.
 */
async function guardLiveEvent(host: LiveRunHost, ctx: InvocationContext, event: Event): Promise<Event> {
  const content = event.content;
  if (!content || event.errorCode || !content.parts.some((p) => p.text !== undefined && !p.thought))
    return event;
  // Typed user text was checked before it was sent (live flow); transcribed speech is checked here.
  if (event.author === 'user' && !event.inputTranscription) return event;
  const checked = await checkLiveContent(ctx, host.agent, event.author, content);
  // State a check recorded (a budget's totals) is kept even when it changed nothing.
  if (
    !checked ||
    (checked.records.length === 0 && Object.keys(checked.context.actions.stateDelta).length === 0)
  )
    return event;
  const text = contentText(checked.content);
  const guarded: Event = {
    ...event,
    content: checked.content,
    actions: {
      ...event.actions,
      stateDelta: { ...event.actions.stateDelta, ...checked.context.actions.stateDelta },
    },
    ...(checked.records.length > 0
      ? { customMetadata: { ...event.customMetadata, [GUARDRAILS_METADATA_KEY]: checked.records } }
      : {}),
  };
  // What the client is shown of the transcript is the checked text too.
  if (event.inputTranscription) guarded.inputTranscription = { ...event.inputTranscription, text };
  if (event.outputTranscription) guarded.outputTranscription = { ...event.outputTranscription, text };
  return guarded;
}
