/** State key prefixes (docs/architecture.md §3.3). */
export const APP_PREFIX = 'app:';
export const USER_PREFIX = 'user:';
export const TEMP_PREFIX = 'temp:';

export type StateScope = 'app' | 'user' | 'session' | 'temp';

export function scopeOf(key: string): StateScope {
  if (key.startsWith(APP_PREFIX)) return 'app';
  if (key.startsWith(USER_PREFIX)) return 'user';
  if (key.startsWith(TEMP_PREFIX)) return 'temp';
  return 'session';
}

export interface SplitDelta {
  /** keys without the `app:` prefix */
  app: Record<string, unknown>;
  /** keys without the `user:` prefix */
  user: Record<string, unknown>;
  session: Record<string, unknown>;
  /** keys with the `temp:` prefix kept */
  temp: Record<string, unknown>;
}

/** Routes a state delta by prefix. App and user keys lose their prefix (as stored). */
export function splitStateDelta(delta: Record<string, unknown>): SplitDelta {
  const out: SplitDelta = { app: {}, user: {}, session: {}, temp: {} };
  for (const key in delta) {
    const value = delta[key];
    switch (scopeOf(key)) {
      case 'app':
        out.app[key.slice(APP_PREFIX.length)] = value;
        break;
      case 'user':
        out.user[key.slice(USER_PREFIX.length)] = value;
        break;
      case 'temp':
        out.temp[key] = value;
        break;
      default:
        out.session[key] = value;
    }
  }
  return out;
}

/** Merges stored app, user and session state into the one flat map a session exposes. */
export function mergeState(
  app: Record<string, unknown>,
  user: Record<string, unknown>,
  session: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...session };
  for (const key in app) merged[APP_PREFIX + key] = app[key];
  for (const key in user) merged[USER_PREFIX + key] = user[key];
  return merged;
}

/** A copy of a delta without `temp:` keys (what is persisted), or the delta itself if it has none. */
export function withoutTempKeys(delta: Record<string, unknown>): Record<string, unknown> {
  let hasTemp = false;
  for (const key in delta) {
    if (key.startsWith(TEMP_PREFIX)) {
      hasTemp = true;
      break;
    }
  }
  if (!hasTemp) return delta;
  const out: Record<string, unknown> = {};
  for (const key in delta) if (!key.startsWith(TEMP_PREFIX)) out[key] = delta[key];
  return out;
}

/**
 * A read/write view of state for callbacks and tools: reads see the pending delta over the base
 * (the session's merged state plus this invocation's `temp:` keys); writes go to the delta, which
 * travels in the next event's `actions.stateDelta`.
 */
export class State {
  constructor(
    private readonly base: Readonly<Record<string, unknown>>,
    readonly delta: Record<string, unknown> = {},
    private readonly temp?: Readonly<Record<string, unknown>>,
  ) {}

  get<T = unknown>(key: string): T | undefined {
    if (key in this.delta) return this.delta[key] as T;
    if (this.temp && key in this.temp) return this.temp[key] as T;
    return this.base[key] as T | undefined;
  }

  has(key: string): boolean {
    return key in this.delta || (this.temp !== undefined && key in this.temp) || key in this.base;
  }

  set(key: string, value: unknown): void {
    this.delta[key] = value;
  }

  /** Several writes at once. */
  update(values: Record<string, unknown>): void {
    Object.assign(this.delta, values);
  }

  hasDelta(): boolean {
    for (const _ in this.delta) return true;
    return false;
  }

  /** The merged view as a plain object. */
  toObject(): Record<string, unknown> {
    return { ...this.base, ...this.temp, ...this.delta };
  }
}
