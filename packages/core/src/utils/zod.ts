// zod is a peer dependency, but @adk/core does not load it at import time (it costs more than
// the rest of the package). It is loaded on first use: by `loadZod()` (the Runner calls it before a
// run, so the same ESM instance as the application's is used), or synchronously on demand.

import type * as Zod from 'zod';
import { nodeBuiltin } from './runtime.js';

export type ZodModule = typeof Zod;

let loaded: ZodModule | undefined;
let loading: Promise<void> | undefined;

/** Loads zod (once). */
export function loadZod(): Promise<void> {
  if (loaded) return Promise.resolve();
  loading ??= import('zod').then((m) => {
    loaded ??= m;
  });
  return loading;
}

/** The zod module, loading it synchronously if `loadZod()` has not run yet. */
export function zod(): ZodModule {
  if (loaded) return loaded;
  // Synchronous loading needs `require`, which only Node-compatible runtimes have (through
  // process.getBuiltinModule, so that the root of @adk/core imports no `node:` module).
  const nodeModule = nodeBuiltin<typeof import('node:module')>('node:module');
  if (!nodeModule) {
    throw new Error(
      'zod is not loaded yet: call `await loadZod()` (or run through a Runner, which does) before using schemas in this runtime',
    );
  }
  loaded = nodeModule.createRequire(import.meta.url)('zod') as ZodModule;
  return loaded;
}

export interface SchemaIssue {
  path: PropertyKey[];
  message: string;
}

export type SafeParseResult<T> =
  | { success: true; data: T }
  | { success: false; error: { issues: SchemaIssue[] } };

/** Anything that validates like a zod schema (a zod schema, or a {@link lazySchema}). */
export interface SchemaLike<T> {
  safeParse(value: unknown): SafeParseResult<T>;
}

export interface LazySchema<T> extends SchemaLike<T> {
  /** The zod schema, built on first access. */
  readonly schema: Zod.ZodType<T>;
  parse(value: unknown): T;
}

/** A zod schema built on first use, so defining it costs nothing at import time. */
export function lazySchema<S extends Zod.ZodType>(
  build: (z: ZodModule['z']) => S,
): LazySchema<Zod.output<S>> {
  let built: S | undefined;
  const get = (): S => {
    built ??= build(zod().z);
    return built;
  };
  return {
    get schema() {
      return get() as unknown as Zod.ZodType<Zod.output<S>>;
    },
    safeParse: (value) => get().safeParse(value) as SafeParseResult<Zod.output<S>>,
    parse: (value) => get().parse(value) as Zod.output<S>,
  };
}

/** One line per issue: `path: message`. */
export function formatIssues(issues: SchemaIssue[]): string {
  return issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ');
}

/** A value built with zod on first use (e.g. a group of schemas that refer to each other). */
export function lazyZod<T>(build: (z: ZodModule['z']) => T): () => T {
  let built: T | undefined;
  return () => {
    built ??= build(zod().z);
    return built;
  };
}

/** A {@link SchemaLike} that validates with a schema made later (by a {@link lazyZod} group). */
export function deferredSchema<T>(get: () => { safeParse(value: unknown): unknown }): SchemaLike<T> {
  return { safeParse: (value) => get().safeParse(value) as SafeParseResult<T> };
}
