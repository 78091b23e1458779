import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';

/**
 * Loads `.env` from a folder into `env` without overriding variables that are already set (the
 * shell wins over the file). Returns the names it set.
 */
export function loadEnvFile(folder: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const file = join(folder, '.env');
  if (!existsSync(file)) return [];
  const parsed = parseEnv(readFileSync(file, 'utf8'));
  const set: string[] = [];
  for (const [key, value] of Object.entries(parsed)) {
    if (env[key] !== undefined || value === undefined) continue;
    env[key] = value;
    set.push(key);
  }
  return set;
}
