import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';

/**
 * `.env` files applied to `env`, remembering which variable came from which file, so a file can be
 * applied again after it changed: its variables are updated (or removed when they left the file),
 * while variables set by the shell, or by another file first, are never overridden.
 */
export class EnvFiles {
  private readonly owners = new Map<string, string>();

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  /** Applies `<folder>/.env` (if any); returns the names whose value changed. */
  apply(folder: string): string[] {
    const file = join(folder, '.env');
    const parsed: Record<string, string | undefined> = existsSync(file)
      ? parseEnv(readFileSync(file, 'utf8'))
      : {};
    const changed: string[] = [];
    for (const [key, owner] of this.owners) {
      if (owner !== file || key in parsed) continue;
      delete this.env[key];
      this.owners.delete(key);
      changed.push(key);
    }
    for (const [key, value] of Object.entries(parsed)) {
      if (value === undefined) continue;
      const owner = this.owners.get(key);
      if (owner === undefined && this.env[key] !== undefined) continue;
      if (owner !== undefined && owner !== file) continue;
      if (this.env[key] !== value) changed.push(key);
      this.env[key] = value;
      this.owners.set(key, file);
    }
    return changed;
  }
}
