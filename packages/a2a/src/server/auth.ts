import type { Caller } from './agent-executor.js';

/**
 * Authenticates a request. Returns the caller, or undefined/null to refuse it with 401. A hook may
 * also throw an A2aError (e.g. PERMISSION_DENIED) for a more specific answer.
 */
export type AuthHook = (request: Request) => Caller | undefined | null | Promise<Caller | undefined | null>;

export interface AuthOptions {
  hook: AuthHook;
  /** Sent with 401 answers, e.g. `Bearer realm="a2a"`. */
  challenge?: string;
}

/** API keys in a header (default `X-API-Key`); `keys` maps each key to its caller id. */
export function apiKeyAuth(options: {
  header?: string;
  keys: Record<string, string> | ((key: string) => Caller | undefined | Promise<Caller | undefined>);
}): AuthOptions {
  const header = options.header ?? 'X-API-Key';
  return {
    challenge: `ApiKey header="${header}"`,
    hook: async (request) => {
      const key = request.headers.get(header);
      if (!key) return undefined;
      if (typeof options.keys === 'function') return options.keys(key);
      const id = Object.hasOwn(options.keys, key) ? options.keys[key] : undefined;
      return id === undefined ? undefined : { id };
    },
  };
}

/** `Authorization: Bearer <token>`, checked by `verify` (JWT validation, token lookup, ...). */
export function bearerAuth(options: {
  verify: (token: string) => Caller | undefined | null | Promise<Caller | undefined | null>;
  realm?: string;
}): AuthOptions {
  return {
    challenge: `Bearer realm="${options.realm ?? 'a2a'}"`,
    hook: async (request) => {
      const header = request.headers.get('authorization') ?? '';
      const m = /^Bearer\s+(.+)$/i.exec(header.trim());
      return m?.[1] ? options.verify(m[1]) : undefined;
    },
  };
}

/** Any other scheme: the hook sees the whole request. */
export function customAuth(hook: AuthHook, challenge?: string): AuthOptions {
  return { hook, ...(challenge ? { challenge } : {}) };
}
