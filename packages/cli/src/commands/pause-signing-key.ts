import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** File of the per-install pause-signing key, in the server's data folder. */
export const PAUSE_KEY_FILE = 'pause-signing.key';

/**
 * The keys `adk api_server` / `adk web` / `adk worker` sign paused calls with: `ADK_PAUSE_SIGNING_KEYS`
 * (comma-separated, first signs; `off` disables), else a key generated once per install and kept in
 * the data folder (readable by the owner only). Instances sharing sessions must share the key: set
 * the variable for them all.
 */
export function pauseSigningKeys(dataDir: string, env = process.env): string[] | undefined {
  const configured = env.ADK_PAUSE_SIGNING_KEYS?.trim();
  if (configured === 'off') return undefined;
  if (configured)
    return configured
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
  const file = join(dataDir, PAUSE_KEY_FILE);
  if (existsSync(file)) return [readFileSync(file, 'utf8').trim()];
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64url');
  // Written whole to a file of its own, then linked into place: an instance starting at the same
  // time either links first or finds the complete key of the one that did (never a half-written file).
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, `${key}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(tmp, file);
    return [key];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return [readFileSync(file, 'utf8').trim()];
  } finally {
    unlinkSync(tmp);
  }
}
