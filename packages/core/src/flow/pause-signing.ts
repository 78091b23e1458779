import { AdkError } from '../errors/errors.js';
import type { Content, FunctionCall } from '../events/content.js';
import { type Event, eventFunctionCalls, eventFunctionResponses } from '../events/event.js';
import { visibleEvents } from '../sessions/visible-events.js';

/**
 * Signed pauses (docs/decisions/0031-signed-pauses.md): every call a run pauses on (a tool
 * confirmation, a credential request, a workflow question, a long-running tool call) is committed
 * with an HMAC-SHA256 over (app, user, invocation, call id, name, arguments). An answer is accepted
 * only for a call whose signature verifies, so a client can neither answer a call that was never
 * asked nor one whose arguments were changed in a session it created with forged events.
 */

/** `customMetadata` key of the signatures of an event's paused calls, by call id. */
export const PAUSE_SIGNATURES_KEY = 'adkPauseSignatures';

/** An answer to a call whose signature is missing or wrong. HTTP 403 in the server. */
export class PauseSignatureError extends AdkError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('FORBIDDEN', message, details ? { details } : {});
    this.name = 'PauseSignatureError';
  }
}

export interface PauseSigningOptions {
  /**
   * Secret keys. The first signs; every one verifies, so a key is rotated by putting the new one
   * first and dropping the old one once the pauses it signed are answered or abandoned.
   */
  keys: readonly string[];
}

interface SigningKey {
  id: string;
  key: Awaited<ReturnType<typeof crypto.subtle.importKey>>;
}

const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

/** JSON with sorted keys: the same value always gives the same bytes. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
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

  private static payload(scope: PauseScope, call: FunctionCall): Uint8Array {
    return encoder.encode(
      canonicalJson({
        v: 2,
        app: scope.appName,
        user: scope.userId,
        session: scope.sessionId,
        invocation: scope.invocationId,
        id: call.id,
        name: call.name,
        args: call.args ?? {},
      }),
    );
  }

  async sign(scope: PauseScope, call: FunctionCall): Promise<string> {
    const [first] = await this.ready;
    const key = first as SigningKey;
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key.key, PauseSigner.payload(scope, call)));
    return `v2.${key.id}.${base64url(mac)}`;
  }

  async verify(scope: PauseScope, call: FunctionCall, signature: unknown): Promise<boolean> {
    if (typeof signature !== 'string') return false;
    const [version, id, mac] = signature.split('.');
    // v1 signatures did not cover the session: they no longer verify.
    if (version !== 'v2' || !id || !mac) return false;
    for (const key of await this.ready) {
      if (key.id !== id) continue;
      const expected = base64url(
        new Uint8Array(await crypto.subtle.sign('HMAC', key.key, PauseSigner.payload(scope, call))),
      );
      return timingSafeEqual(expected, mac);
    }
    return false;
  }

  /** The event with signatures for each call it pauses on (its `longRunningToolIds`). */
  async signEvent(scope: Omit<PauseScope, 'invocationId'>, event: Event): Promise<Event> {
    const ids = event.longRunningToolIds;
    if (!ids || ids.length === 0) return event;
    const signatures: Record<string, string> = {};
    for (const call of eventFunctionCalls(event))
      if (ids.includes(call.id))
        signatures[call.id] = await this.sign({ ...scope, invocationId: event.invocationId }, call);
    if (Object.keys(signatures).length === 0) return event;
    return { ...event, customMetadata: { ...event.customMetadata, [PAUSE_SIGNATURES_KEY]: signatures } };
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
    const responses = message ? eventFunctionResponses({ content: message } as Event) : [];
    if (responses.length === 0) return;
    const visible = visibleEvents(events);
    for (const response of responses) {
      let found: { call: FunctionCall; event: Event; at: number } | undefined;
      for (let i = visible.length - 1; i >= 0 && !found; i--) {
        const event = visible[i] as Event;
        if (event.author === 'user') continue;
        const call = eventFunctionCalls(event).find((c) => c.id === response.id);
        if (call) found = { call, event, at: i };
      }
      // A call the client answered already is not paused any more: a second answer (a replay of a
      // signed one) would run a confirmed tool again. A tool's own interim result does not count.
      if (
        found &&
        visible
          .slice(found.at + 1)
          .some((e) => e.author === 'user' && eventFunctionResponses(e).some((r) => r.id === response.id))
      )
        throw new PauseSignatureError(
          `The answer to "${response.name}" (${response.id}) is refused: that call was answered already`,
          { callId: response.id },
        );
      if (!found)
        throw new PauseSignatureError(
          `The answer "${response.name}" (${response.id}) matches no paused call`,
          {
            callId: response.id,
          },
        );
      const { call, event } = found;
      const signature = (
        event.customMetadata?.[PAUSE_SIGNATURES_KEY] as Record<string, unknown> | undefined
      )?.[call.id];
      const valid =
        call.name === response.name &&
        (event.longRunningToolIds ?? []).includes(call.id) &&
        (await this.verify({ ...scope, invocationId: event.invocationId }, call, signature));
      if (!valid)
        throw new PauseSignatureError(
          `The answer to "${call.name}" (${call.id}) is refused: the paused call is not signed by this server or was altered`,
          { callId: call.id },
        );
    }
  }
}

export interface PauseScope {
  appName: string;
  userId: string;
  /** The session the pause belongs to: a signed pause copied into another session does not verify. */
  sessionId: string;
  invocationId: string;
}

function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
