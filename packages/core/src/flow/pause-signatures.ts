/**
 * `PauseSigner`'s signing and checking (docs/decisions/0031-signed-pauses.md), imported the first
 * time a runner with pause signing signs or checks a call, so that an app without signed pauses
 * never loads it.
 */
import { AdkError } from '../errors/errors.js';
import type { Content, FunctionCall } from '../events/content.js';
import { type Event, eventFunctionCalls, eventFunctionResponses } from '../events/event.js';
import { visibleEvents } from '../sessions/visible-events.js';
import {
  base64url,
  encoder,
  PAUSE_SIGNATURES_KEY,
  type PauseScope,
  type PauseSigner,
  type SigningKey,
} from './pause-signing.js';

/** An answer to a call whose signature is missing or wrong. HTTP 403 in the server. */
export class PauseSignatureError extends AdkError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('FORBIDDEN', message, details ? { details } : {});
    this.name = 'PauseSignatureError';
  }
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

function payload(scope: PauseScope, call: FunctionCall): Uint8Array {
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

export async function sign(
  ready: Promise<SigningKey[]>,
  scope: PauseScope,
  call: FunctionCall,
): Promise<string> {
  const [first] = await ready;
  const key = first as SigningKey;
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key.key, payload(scope, call)));
  return `v2.${key.id}.${base64url(mac)}`;
}

export async function verify(
  ready: Promise<SigningKey[]>,
  scope: PauseScope,
  call: FunctionCall,
  signature: unknown,
): Promise<boolean> {
  if (typeof signature !== 'string') return false;
  const [version, id, mac] = signature.split('.');
  // v1 signatures did not cover the session: they no longer verify.
  if (version !== 'v2' || !id || !mac) return false;
  for (const key of await ready) {
    if (key.id !== id) continue;
    const expected = base64url(
      new Uint8Array(await crypto.subtle.sign('HMAC', key.key, payload(scope, call))),
    );
    return timingSafeEqual(expected, mac);
  }
  return false;
}

/** See `PauseSigner.signEvent`. */
export async function signEvent(
  signer: PauseSigner,
  scope: Omit<PauseScope, 'invocationId'>,
  event: Event,
): Promise<Event> {
  const ids = event.longRunningToolIds;
  if (!ids || ids.length === 0) return event;
  const signatures: Record<string, string> = {};
  for (const call of eventFunctionCalls(event))
    if (ids.includes(call.id))
      signatures[call.id] = await signer.sign({ ...scope, invocationId: event.invocationId }, call);
  if (Object.keys(signatures).length === 0) return event;
  return { ...event, customMetadata: { ...event.customMetadata, [PAUSE_SIGNATURES_KEY]: signatures } };
}

/** See `PauseSigner.verifyAnswers`. */
export async function verifyAnswers(
  signer: PauseSigner,
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
      throw new PauseSignatureError(`The answer "${response.name}" (${response.id}) matches no paused call`, {
        callId: response.id,
      });
    const { call, event } = found;
    const signature = (event.customMetadata?.[PAUSE_SIGNATURES_KEY] as Record<string, unknown> | undefined)?.[
      call.id
    ];
    const valid =
      call.name === response.name &&
      (event.longRunningToolIds ?? []).includes(call.id) &&
      (await signer.verify({ ...scope, invocationId: event.invocationId }, call, signature));
    if (!valid)
      throw new PauseSignatureError(
        `The answer to "${call.name}" (${call.id}) is refused: the paused call is not signed by this server or was altered`,
        { callId: call.id },
      );
  }
}

function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
