import { AdkError } from '../errors/errors.js';
import type { Content, FunctionCall } from '../events/content.js';
import type { Event } from '../events/event.js';

/**
 * Signed pauses (docs/decisions/0031-signed-pauses.md): every call a run pauses on (a tool
 * confirmation, a credential request, a workflow question, a long-running tool call) is committed
 * with an HMAC-SHA256 over (app, user, invocation, call id, name, arguments). An answer is accepted
 * only for a call whose signature verifies, so a client can neither answer a call that was never
 * asked nor one whose arguments were changed in a session it created with forged events.
 */

/** `customMetadata` key of the signatures of an event's paused calls, by call id. */
export const PAUSE_SIGNATURES_KEY = 'adkPauseSignatures';

export interface PauseSigningOptions {
  /**
   * Secret keys. The first signs; every one verifies, so a key is rotated by putting the new one
   * first and dropping the old one once the pauses it signed are answered or abandoned.
   */
  keys: readonly string[];
}

/** One imported key with its id (shared with the lazily loaded signing code). */
export interface SigningKey {
  id: string;
  key: Awaited<ReturnType<typeof crypto.subtle.importKey>>;
}

/** UTF-8 encoder shared with the lazily loaded signing code. */
export const encoder = /* @__PURE__ */ new TextEncoder();

/** Base64url without padding (shared with the lazily loaded signing code). */
export function base64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

/** Signs and verifies paused calls with a runner's keys. */
export class PauseSigner {
  private readonly ready: Promise<SigningKey[]>;

  constructor(options: PauseSigningOptions) {
    if (options.keys.length === 0 || options.keys.some((k) => k.length < 16))
      throw new AdkError('CONFIG', 'Pause signing needs at least one key of 16 characters or more');
    this.ready = Promise.all(
      options.keys.map(async (secret) => {
        const raw = encoder.encode(secret);
        const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', raw));
        return {
          // A short id of the key (not the key): says which key signed, so rotation can be traced.
          id: base64url(digest.slice(0, 6)),
          key: await crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']),
        };
      }),
    );
  }

  async sign(scope: PauseScope, call: FunctionCall): Promise<string> {
    return (await loadSignatures()).sign(this.ready, scope, call);
  }

  async verify(scope: PauseScope, call: FunctionCall, signature: unknown): Promise<boolean> {
    return (await loadSignatures()).verify(this.ready, scope, call, signature);
  }

  /** The event with signatures for each call it pauses on (its `longRunningToolIds`). */
  async signEvent(scope: Omit<PauseScope, 'invocationId'>, event: Event): Promise<Event> {
    const ids = event.longRunningToolIds;
    if (!ids || ids.length === 0) return event;
    return (await loadSignatures()).signEvent(this, scope, event);
  }

  /**
   * Checks every function response of a new message: each must answer a call of the session that
   * was paused on with a valid signature (same name). Throws PauseSignatureError otherwise.
   */
  async verifyAnswers(
    scope: Omit<PauseScope, 'invocationId'>,
    events: readonly Event[],
    message: Content | undefined,
  ): Promise<void> {
    if (!message?.parts.some((p) => p.functionResponse)) return;
    return (await loadSignatures()).verifyAnswers(this, scope, events, message);
  }
}

export interface PauseScope {
  appName: string;
  userId: string;
  /** The session the pause belongs to: a signed pause copied into another session does not verify. */
  sessionId: string;
  invocationId: string;
}

let signatures: Promise<typeof import('./pause-signatures.js')> | undefined;
/** Signing and checking (HMAC over the canonical call), imported once on first use. */
const loadSignatures = () => (signatures ??= import('./pause-signatures.js'));
