import { CallbackContext } from '../agents/callback-context.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import type { LiveRequestQueue } from '../agents/live-request-queue.js';
import type { AuthConfig, AuthCredential } from '../auth/auth-credential.js';
import type { CredentialCallContext } from '../auth/credential-manager.js';
import { ConfigError } from '../errors/errors.js';
import type { EventActions, ToolConfirmation } from '../events/event.js';
import type { SearchMemoryResult } from '../memory/memory-service.js';

/**
 * Context of one tool call. State writes, artifact saves, transfers and escalations are recorded in
 * `actions` and land in the function-response event (and so in the session).
 */
export class ToolContext extends CallbackContext {
  constructor(
    invocationContext: InvocationContext,
    readonly functionCallId: string,
    actions?: EventActions,
    /** The user's answer when this call was confirmed or rejected (see requestConfirmation). */
    readonly toolConfirmation?: ToolConfirmation,
  ) {
    super(invocationContext, actions);
  }

  override async searchMemory(query: string, limit?: number): Promise<SearchMemoryResult> {
    const ctx = this.invocationContext;
    if (!ctx.memoryService) throw new ConfigError('No memoryService was given to the Runner');
    return ctx.memoryService.searchMemory({
      appName: ctx.appName,
      userId: ctx.userId,
      query,
      ...(limit === undefined ? {} : { limit }),
    });
  }

  /** Ask the user to confirm this call; the tool's result is then ignored and the run pauses. */
  requestConfirmation(hint?: string, payload?: unknown): void {
    this.actions.requestedToolConfirmations ??= {};
    this.actions.requestedToolConfirmations[this.functionCallId] = {
      confirmed: false,
      ...(hint === undefined ? {} : { hint }),
      ...(payload === undefined ? {} : { payload }),
    };
    this.actions.skipSummarization = true;
  }

  private credentialContext(): CredentialCallContext {
    const ctx = this.invocationContext;
    if (!ctx.credentialService) throw new ConfigError('No credentialService was given to the Runner');
    return {
      scope: { appName: ctx.appName, userId: ctx.userId },
      service: ctx.credentialService,
      authResponse: ctx.shared.resumedAuth?.get(this.functionCallId),
      http: { signal: ctx.signal },
    };
  }

  /**
   * Asks the client for a credential (an `adk_request_credential` call, as in ADK); the tool's
   * result is then ignored and the run pauses until the client answers. For OAuth2 / OpenID Connect
   * the request carries an authorization URL with state and PKCE; secrets are never sent.
   */
  async requestCredential(authConfig: AuthConfig): Promise<void> {
    const context = this.credentialContext();
    const { buildAuthRequest } = await loadCredentialManager();
    const request = await buildAuthRequest(authConfig, context);
    this.actions.requestedAuthConfigs ??= {};
    this.actions.requestedAuthConfigs[this.functionCallId] = request;
    this.actions.skipSummarization = true;
  }

  /**
   * The credential the client supplied for this call (after `requestCredential`), exchanged for
   * tokens when it is an OAuth2 callback and stored in the credential service; undefined when
   * this call is not answering a credential request, or answers one for another auth config (its
   * `credentialKey` differs). Each auth config's answer is exchanged once per call.
   */
  async getAuthResponse(authConfig: AuthConfig): Promise<AuthCredential | undefined> {
    const context = this.credentialContext();
    const response = context.authResponse;
    if (!response) return undefined;
    const key = (await loadAuthCredential()).credentialKeyOf(authConfig);
    if (response.credentialKey !== undefined && response.credentialKey !== key) return undefined;
    let exchanged = this.exchanged.get(key);
    if (!exchanged) {
      exchanged = loadCredentialManager().then((m) => m.exchangeAuthResponse(authConfig, response, context));
      this.exchanged.set(key, exchanged);
    }
    return exchanged;
  }
  /** The exchange of this call's auth response, per credential key of the auth config it was for. */
  private readonly exchanged = new Map<string, Promise<AuthCredential>>();

  /**
   * The credential to call with: a complete raw credential, a stored one (refreshed when expired),
   * this call's auth response, or a client-credentials token. When none is available it requests
   * one from the client (see requestCredential) and returns undefined: return from the tool then.
   */
  async getCredential(authConfig: AuthConfig): Promise<AuthCredential | undefined> {
    const context = this.credentialContext();
    const { resolveCredential } = await loadCredentialManager();
    const credential = await resolveCredential(authConfig, context);
    if (credential) return credential;
    await this.requestCredential(authConfig);
    return undefined;
  }

  /** The stored credential of an auth config, if any (no refresh, no request). */
  async loadCredential(authConfig: AuthConfig): Promise<AuthCredential | undefined> {
    const { scope, service } = this.credentialContext();
    const key = (await loadAuthCredential()).credentialKeyOf(authConfig);
    return service.loadCredential({ ...scope, key, signal: this.signal });
  }

  /** Drops the stored credential of an auth config (e.g. the API refused it), so the next call asks again. */
  async forgetCredential(authConfig: AuthConfig): Promise<void> {
    const { scope, service } = this.credentialContext();
    const key = (await loadAuthCredential()).credentialKeyOf(authConfig);
    await service.deleteCredential({ ...scope, key });
  }

  /**
   * In a live session: the client's requests (audio, video frames, text) from now on, copied for
   * this call while it runs — for streaming tools that watch the input (adk-python's
   * `input_stream`). Closed when the call ends. Undefined outside live sessions.
   */
  get inputStream(): LiveRequestQueue | undefined {
    return this.invocationContext.liveInputFor?.(this.functionCallId);
  }

  transferToAgent(agentName: string): void {
    this.actions.transferToAgent = agentName;
  }

  escalate(): void {
    this.actions.escalate = true;
  }

  skipSummarization(): void {
    this.actions.skipSummarization = true;
  }
}

let credentialManager: Promise<typeof import('../auth/credential-manager.js')> | undefined;
/**
 * Credential requests and exchanges (OAuth2 with its HTTP client) are loaded on the first tool that
 * asks for a credential: an app whose tools never do does not load them.
 */
const loadCredentialManager = () => (credentialManager ??= import('../auth/credential-manager.js'));

let authCredential: Promise<typeof import('../auth/auth-credential.js')> | undefined;
/** Credential keys (a SHA-256 of the auth config), imported once on first use. */
const loadAuthCredential = () => (authCredential ??= import('../auth/auth-credential.js'));
