import { ConfigError } from '../errors/errors.js';
import type { Content, JsonValue, Part } from '../events/content.js';
import { type EventActions, emptyActions } from '../events/event.js';
import type { SearchMemoryResult } from '../memory/memory-service.js';
import type { Session } from '../sessions/session.js';
import { State } from '../sessions/state.js';
import type { InvocationContext } from './invocation-context.js';

/** Read-only view for instruction providers and toolsets. */
export class ReadonlyContext {
  constructor(readonly invocationContext: InvocationContext) {}

  get invocationId(): string {
    return this.invocationContext.invocationId;
  }
  get agentName(): string {
    return this.invocationContext.agent.name;
  }
  get userId(): string {
    return this.invocationContext.userId;
  }
  get session(): Session {
    return this.invocationContext.session;
  }
  get userContent(): Content | undefined {
    return this.invocationContext.userContent;
  }
  get signal(): AbortSignal {
    return this.invocationContext.signal;
  }
  /** Merged session state plus this invocation's `temp:` keys. */
  readState<T = unknown>(key: string): T | undefined {
    if (key in this.invocationContext.shared.tempState)
      return this.invocationContext.shared.tempState[key] as T;
    return this.invocationContext.session.state[key] as T | undefined;
  }
}

/**
 * Context of a callback: state writes and artifact saves are recorded in `actions` and land in the
 * event the agent yields next (so they are committed with it).
 */
export class CallbackContext extends ReadonlyContext {
  readonly actions: EventActions;
  readonly state: State;

  constructor(invocationContext: InvocationContext, actions: EventActions = emptyActions()) {
    super(invocationContext);
    this.actions = actions;
    this.state = new State(
      invocationContext.session.state,
      actions.stateDelta,
      invocationContext.shared.tempState,
    );
  }

  private artifactScope() {
    const ctx = this.invocationContext;
    if (!ctx.artifactService) throw new ConfigError('No artifactService was given to the Runner');
    return {
      service: ctx.artifactService,
      scope: { appName: ctx.appName, userId: ctx.userId, sessionId: ctx.session.id },
    };
  }

  /** Saves a new version (with optional custom metadata); the version lands in `artifactDelta`. */
  async saveArtifact(
    filename: string,
    artifact: Part,
    customMetadata?: Record<string, JsonValue>,
  ): Promise<number> {
    const { service, scope } = this.artifactScope();
    const version = await service.saveArtifact({
      ...scope,
      filename,
      artifact,
      ...(customMetadata === undefined ? {} : { customMetadata }),
    });
    this.actions.artifactDelta[filename] = version;
    return version;
  }

  async loadArtifact(filename: string, version?: number): Promise<Part | undefined> {
    const { service, scope } = this.artifactScope();
    // Reads stop with the invocation (its signal); writes are not cut short halfway.
    return service.loadArtifact({
      ...scope,
      filename,
      ...(version === undefined ? {} : { version }),
      signal: this.signal,
    });
  }

  async listArtifacts(): Promise<string[]> {
    const { service, scope } = this.artifactScope();
    return service.listArtifactKeys({ ...scope, signal: this.signal });
  }

  /** Searches the user's long-term memory (the Runner's memoryService) across their sessions. */
  async searchMemory(query: string, limit?: number): Promise<SearchMemoryResult> {
    const ctx = this.invocationContext;
    if (!ctx.memoryService) throw new ConfigError('No memoryService was given to the Runner');
    return ctx.memoryService.searchMemory({
      appName: ctx.appName,
      userId: ctx.userId,
      query,
      ...(limit === undefined ? {} : { limit }),
    });
  }
}
