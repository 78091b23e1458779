import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** This package's version, read from its package.json (found from this file, built or not). */
export function serverVersion(): string {
  if (cached) return cached;
  for (const rel of ['../package.json', '../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === '@adk/server' && pkg.version) {
        cached = pkg.version;
        return cached;
      }
    } catch {
      // not this level
    }
  }
  cached = '0.0.0';
  return cached;
}
