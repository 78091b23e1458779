import { readFileSync } from 'node:fs';
import { tryParseJson } from '../utils/json.js';

const versions = new Map<string, string>();

/**
 * The `version` of the package.json at `packageJsonUrl` (e.g. `new URL('../package.json',
 * import.meta.url)`, which resolves the same from src/ and dist/), or '0.0.0' when unreadable.
 */
export function packageVersion(packageJsonUrl: URL): string {
  const key = packageJsonUrl.href;
  let version = versions.get(key);
  if (version === undefined) {
    try {
      const parsed = tryParseJson(readFileSync(packageJsonUrl, 'utf8'));
      const v = (parsed as { version?: unknown } | undefined)?.version;
      version = typeof v === 'string' ? v : '0.0.0';
    } catch {
      version = '0.0.0';
    }
    versions.set(key, version);
  }
  return version;
}

/** The version of @adk/core itself. */
export function coreVersion(): string {
  return packageVersion(new URL('../../package.json', import.meta.url));
}

/**
 * The User-Agent sent by every ADK HTTP call, e.g.
 * `adk-ts/0.1.0 @adk/models-gemini/0.1.0 node/v24.1.0`.
 */
export function userAgent(packageName?: string, version?: string): string {
  const parts = [`adk-ts/${coreVersion()}`];
  if (packageName) parts.push(version ? `${packageName}/${version}` : packageName);
  parts.push(`node/${process.version}`);
  return parts.join(' ');
}
