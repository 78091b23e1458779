import type { ArtifactService } from '../artifacts/artifact-service.js';
import type { AuthConfig } from '../auth/auth-credential.js';
import type { CredentialService } from '../auth/credential-service.js';
import type { Content } from '../events/content.js';
import type { Event } from '../events/event.js';
import type { ContextCompressor } from '../flow/compression.js';
import type { InputGate } from '../guardrails/run-guardrails.js';
import type { MemoryService } from '../memory/memory-service.js';
import type { ModelRegistry } from '../models/registry.js';
import type { PluginManager } from '../plugins/plugin-manager.js';
import type { Session, SessionService } from '../sessions/session.js';
import type { TraceContext } from '../telemetry/tracing.js';
import type { BaseAgent } from './base-agent.js';
import type { LiveRequestQueue } from './live-request-queue.js';
import type { RunConfig } from './run-config.js';

/** Mutable counters shared by every context of one invocation. */
export interface InvocationShared {
  llmCalls: number;
  /** Set to stop the invocation after the current step (escalation, halt, pause). */
  ended: boolean;
  /** `temp:` state: visible for the rest of the invocation, never persisted. */
  tempState: Record<string, unknown>;
  /**
   * When the Runner resumes a paused agent through its Sequential/Loop ancestors: the agents from
   * the one it runs down to the paused one (docs/architecture.md §5.3); cleared once reached.
   */
  resumePath?: BaseAgent[] | undefined;
  /**
   * The invocation continues after the process that ran it stopped (crash recovery): its events so
   * far are in the session, and calls it started without an answer are settled first.
   */
  recovering?: boolean;
  /** Sees every event the runner yields, once committed (the run's record and live tails). */
  observe?: ((event: Event) => void) | undefined;
  /** Time this invocation has waited to retry model calls the vendor refused for now (ms). */
  modelRetryWaitMs?: number;
  /** Answers to `adk_request_credential` in this invocation's user message, by request-call id (never persisted). */
  authAnswers?: Map<string, AuthConfig>;
  /** The same answers by the id of the tool call they resume. */
  resumedAuth?: Map<string, AuthConfig>;
  /** Input guardrails running beside the first model call (docs/decisions/0030-guardrails.md). */
  inputGate?: InputGate | undefined;
}

export interface InvocationContextInit {
  invocationId: string;
  appName: string;
  userId: string;
  session: Session;
  sessionService: SessionService;
  artifactService?: ArtifactService | undefined;
  memoryService?: MemoryService | undefined;
  credentialService?: CredentialService | undefined;
  pluginManager: PluginManager;
  models: ModelRegistry;
  runConfig: RunConfig;
  signal: AbortSignal;
  agent: BaseAgent;
  rootAgent: BaseAgent;
  branch?: string | undefined;
  userContent?: Content | undefined;
  shared: InvocationShared;
  /** Where `endInvocation()` records the end: the whole invocation, or one parallel branch. */
  scope?: { ended: boolean } | undefined;
  trace: TraceContext;
  /** Runner-level context compression (an agent's own setting wins). */
  contextCompression?: ContextCompressor[] | undefined;
  /** Side channel for events produced inside a tool call (AgentTool streaming); not committed. */
  emit?: ((event: Event) => void) | undefined;
  /** The client's requests in a live session (`Runner.runLive`); undefined in `run`. */
  liveRequestQueue?: LiveRequestQueue | undefined;
  /** Live sessions: the resumption handle to connect with first (then the latest one received). */
  liveResumptionHandle?: { current: string | undefined } | undefined;
  /** Live sessions: stops the running streaming calls of a tool (`stop_streaming`); returns how many. */
  stopStreaming?: ((functionName: string) => number) | undefined;
  /** Live sessions: a copy of the client's requests for a running call (`ToolContext.inputStream`). */
  liveInputFor?: ((functionCallId: string) => LiveRequestQueue | undefined) | undefined;
}

/**
 * Everything an agent needs for one invocation. Child contexts (a sub-agent, a parallel branch)
 * share the session, services and counters and differ in agent, branch and trace parent.
 */
export class InvocationContext {
  readonly invocationId: string;
  readonly appName: string;
  readonly userId: string;
  /** The runner's live copy of the session: committed events and state appear here at once. */
  readonly session: Session;
  readonly sessionService: SessionService;
  readonly artifactService: ArtifactService | undefined;
  readonly memoryService: MemoryService | undefined;
  readonly credentialService: CredentialService | undefined;
  readonly pluginManager: PluginManager;
  readonly models: ModelRegistry;
  readonly runConfig: RunConfig;
  readonly signal: AbortSignal;
  readonly agent: BaseAgent;
  readonly rootAgent: BaseAgent;
  readonly branch: string | undefined;
  readonly userContent: Content | undefined;
  readonly shared: InvocationShared;
  readonly scope: { ended: boolean };
  readonly trace: TraceContext;
  readonly contextCompression: ContextCompressor[] | undefined;
  readonly emit: ((event: Event) => void) | undefined;
  readonly liveRequestQueue: LiveRequestQueue | undefined;
  readonly liveResumptionHandle: { current: string | undefined } | undefined;
  readonly stopStreaming: ((functionName: string) => number) | undefined;
  readonly liveInputFor: ((functionCallId: string) => LiveRequestQueue | undefined) | undefined;

  constructor(init: InvocationContextInit) {
    this.invocationId = init.invocationId;
    this.appName = init.appName;
    this.userId = init.userId;
    this.session = init.session;
    this.sessionService = init.sessionService;
    this.artifactService = init.artifactService;
    this.memoryService = init.memoryService;
    this.credentialService = init.credentialService;
    this.pluginManager = init.pluginManager;
    this.models = init.models;
    this.runConfig = init.runConfig;
    this.signal = init.signal;
    this.agent = init.agent;
    this.rootAgent = init.rootAgent;
    this.branch = init.branch;
    this.userContent = init.userContent;
    this.shared = init.shared;
    this.scope = init.scope ?? init.shared;
    this.trace = init.trace;
    this.contextCompression = init.contextCompression;
    this.emit = init.emit;
    this.liveRequestQueue = init.liveRequestQueue;
    this.liveResumptionHandle = init.liveResumptionHandle;
    this.stopStreaming = init.stopStreaming;
    this.liveInputFor = init.liveInputFor;
  }

  /** A context for another agent (and optionally another branch or trace parent). */
  with(
    changes: Partial<
      Pick<
        InvocationContextInit,
        'agent' | 'branch' | 'trace' | 'signal' | 'emit' | 'scope' | 'stopStreaming'
      >
    >,
  ): InvocationContext {
    // Copied from this context (one shape) rather than from a spread literal (a new shape per
    // caller): this runs several times per turn.
    const next = new InvocationContext(this);
    Object.assign(next, changes);
    if (next.scope === undefined) (next as { scope: { ended: boolean } }).scope = next.shared;
    return next;
  }

  /** Whether this invocation (or this context's parallel branch) has ended. */
  get ended(): boolean {
    return this.shared.ended || this.scope.ended || this.signal.aborted;
  }

  /** Ends the invocation — or only the current branch, inside a ParallelAgent. */
  endInvocation(): void {
    this.scope.ended = true;
  }
}
