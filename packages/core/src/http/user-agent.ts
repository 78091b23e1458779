import { tryParseJson } from '../utils/json.js';
import { nodeBuiltin, runtimeTag } from '../utils/runtime.js';

/** A local file's text, where the runtime can read files (Node, Bun, Deno); else undefined. */
function readText(file: URL): string | undefined {
  return nodeBuiltin<typeof import('node:fs')>('node:fs')?.readFileSync(file, 'utf8');
}

const versions = new Map<string, string>();

/**
 * The `version` of a package.json: the one at `url` when it names a package.json (e.g.
 * `new URL('../package.json', import.meta.url)`), else the nearest one at or above the folder `url`
 * names (e.g. `new URL('./', import.meta.url)`, which works from src/, dist/ and bundled chunks).
 * '0.0.0' when none is readable.
 */
export function packageVersion(url: URL): string {
  const key = url.href;
  let version = versions.get(key);
  if (version === undefined) {
    version = '0.0.0';
    let dir = new URL('./', url);
    for (let depth = 0; depth < 8; depth++) {
      const v = readVersion(new URL('package.json', dir));
      if (v !== undefined) {
        version = v;
        break;
      }
      const parent = new URL('../', dir);
      if (parent.href === dir.href) break;
      dir = parent;
    }
    versions.set(key, version);
  }
  return version;
}

function readVersion(file: URL): string | undefined {
  try {
    const v = (tryParseJson(readText(file) ?? '') as { version?: unknown } | undefined)?.version;
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The version of @adk/core itself. */
export function coreVersion(): string {
  return packageVersion(new URL('./', import.meta.url));
}

/**
 * The User-Agent sent by every ADK HTTP call, e.g.
 * `adk-ts/0.1.0 @adk/models-gemini/0.1.0 node/v24.1.0`.
 */
export function userAgent(packageName?: string, version?: string): string {
  const parts = [`adk-ts/${coreVersion()}`];
  if (packageName) parts.push(version ? `${packageName}/${version}` : packageName);
  parts.push(runtimeTag());
  return parts.join(' ');
}
