import type { z } from 'zod';
import { ValidationError } from '../errors/errors.js';
import { State } from './state.js';

type StateSource = State | Readonly<Record<string, unknown>>;

/** A read/write view of state whose keys and values are typed by a schema. */
export interface TypedStateView<T extends object> {
  /** The value, validated against the key's schema; `undefined` when absent. */
  get<K extends keyof T & string>(key: K): T[K] | undefined;
  /** Validated, then written like `state.set` (routed by prefix when the event is committed). */
  set<K extends keyof T & string>(key: K, value: T[K]): void;
}

/**
 * A state schema: `app:`, `user:`, `temp:` and session keys with their types. Give it to `runAgent`
 * (`stateSchema`, then `result.state` is typed) and use it in tools and callbacks:
 * `appState.view(ctx.state).get('user:last_city')` is `string | undefined`.
 */
export interface StateSchema<T extends object> {
  readonly schema: z.ZodObject;
  /** The whole state, validated (`ValidationError` naming the key when a value does not match). */
  parse(state: StateSource): T;
  /** One key, validated; `undefined` when absent. */
  get<K extends keyof T & string>(state: StateSource, key: K): T[K] | undefined;
  set<K extends keyof T & string>(state: State, key: K, value: T[K]): void;
  view(state: State): TypedStateView<T>;
}

/** Declares the state an agent or app uses, typed by a zod object schema. */
export function defineState<S extends z.ZodObject>(schema: S): StateSchema<z.output<S>> {
  type T = z.output<S>;
  const shape = schema.shape as Record<string, z.ZodType>;
  const read = (state: StateSource, key: string): unknown =>
    state instanceof State ? state.get(key) : (state as Record<string, unknown>)[key];
  const check = (key: string, value: unknown): unknown => {
    const field = shape[key];
    if (!field) throw new ValidationError(`State key "${key}" is not in the state schema`);
    const parsed = field.safeParse(value);
    if (!parsed.success)
      throw new ValidationError(`State key "${key}" does not match its schema: ${parsed.error.message}`, {
        details: { key },
      });
    return parsed.data;
  };
  const get = <K extends keyof T & string>(state: StateSource, key: K): T[K] | undefined => {
    const value = read(state, key);
    return value === undefined ? undefined : (check(key, value) as T[K]);
  };
  const set = <K extends keyof T & string>(state: State, key: K, value: T[K]): void => {
    state.set(key, check(key, value));
  };
  return {
    schema,
    parse(state) {
      const values: Record<string, unknown> = {};
      for (const key of Object.keys(shape)) {
        const value = read(state, key);
        if (value !== undefined) values[key] = value;
      }
      const parsed = schema.safeParse(values);
      if (!parsed.success)
        throw new ValidationError(`State does not match its schema: ${parsed.error.message}`);
      return parsed.data as T;
    },
    get,
    set,
    view: (state) => ({ get: (key) => get(state, key), set: (key, value) => set(state, key, value) }),
  };
}
