// Feature checks for the few places where @adk/core uses a runtime's own modules. The root entry
// point imports no `node:` module, so it loads in Node, Bun, Deno, browsers and edge runtimes;
// where Node (or a runtime that implements `process.getBuiltinModule`, as Bun and Deno do) is
// present, these give its built-in modules synchronously.

interface ProcessLike {
  env?: Record<string, string | undefined>;
  version?: string;
  getBuiltinModule?: (id: string) => unknown;
}

function processLike(): ProcessLike | undefined {
  const p = (globalThis as { process?: ProcessLike }).process;
  return p && typeof p === 'object' ? p : undefined;
}

/** A built-in module of the runtime (`node:fs`, `node:module`, …), or undefined where there is none. */
export function nodeBuiltin<T>(id: `node:${string}`): T | undefined {
  const get = processLike()?.getBuiltinModule;
  if (typeof get !== 'function') return undefined;
  try {
    return get(id) as T | undefined;
  } catch {
    return undefined;
  }
}

/** The environment variables (`process.env`), or an empty object where the runtime has none. */
export function runtimeEnv(): Record<string, string | undefined> {
  return processLike()?.env ?? {};
}

/** `node/v24.1.0`, `deno/2.1.0`, `bun/1.2.0`, or `runtime/unknown` (for the User-Agent). */
export function runtimeTag(): string {
  const g = globalThis as { Deno?: { version?: { deno?: string } }; Bun?: { version?: string } };
  if (g.Bun?.version) return `bun/${g.Bun.version}`;
  if (g.Deno?.version?.deno) return `deno/${g.Deno.version.deno}`;
  const version = processLike()?.version;
  return version ? `node/${version}` : 'runtime/unknown';
}
