import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PAUSE_KEY_FILE, pauseSigningKeys } from './commands/pause-signing-key.js';

const dir = mkdtempSync(join(tmpdir(), 'adk-pause-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the pause-signing key of adk api_server', () => {
  it('is generated once per install, readable by its owner only, and kept', () => {
    const first = pauseSigningKeys(join(dir, 'data'), {});
    expect(first?.[0]?.length).toBeGreaterThanOrEqual(32);
    const file = join(dir, 'data', PAUSE_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(first?.[0]);
    expect(pauseSigningKeys(join(dir, 'data'), {})).toEqual(first);
  });

  it('ADK_PAUSE_SIGNING_KEYS gives the keys (first signs) or turns signing off', () => {
    expect(
      pauseSigningKeys(join(dir, 'other'), {
        ADK_PAUSE_SIGNING_KEYS: 'new-key-0123456789, old-key-0123456789',
      }),
    ).toEqual(['new-key-0123456789', 'old-key-0123456789']);
    expect(pauseSigningKeys(join(dir, 'other'), { ADK_PAUSE_SIGNING_KEYS: 'off' })).toBeUndefined();
  });
});
