// Web Crypto's randomUUID: present in Node ≥ 19, Bun, Deno, browsers (secure contexts) and edge runtimes.
const randomUUID = (): string => globalThis.crypto.randomUUID();

/** A new unique id (UUID v4). Function calls without a vendor id get one of these. */
export function newId(): string {
  return randomUUID();
}

/** A new function-call id, unique across calls (never derived from the tool name). */
export function newFunctionCallId(): string {
  return `adk-${randomUUID()}`;
}
