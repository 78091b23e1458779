import { describe, expect, it } from 'vitest';
import { type AuthCredential, isTokenExpired } from '../index.js';

const expiresAtSeconds = 1_900_000_000;
const token: AuthCredential = {
  authType: 'oauth2',
  oauth2: { accessToken: 'at', expiresAt: expiresAtSeconds },
};
const expiry = expiresAtSeconds * 1000;

describe('isTokenExpired', () => {
  it('takes its times in milliseconds: { nowMs, skewMs }', () => {
    expect(isTokenExpired(token, { nowMs: expiry - 60_000 })).toBe(false);
    // Within the default 30 s margin.
    expect(isTokenExpired(token, { nowMs: expiry - 20_000 })).toBe(true);
    expect(isTokenExpired(token, { nowMs: expiry - 20_000, skewMs: 10_000 })).toBe(false);
    expect(isTokenExpired(token, { nowMs: expiry - 20_000, skewMs: 0 })).toBe(false);
    expect(isTokenExpired(token, { nowMs: expiry, skewMs: 0 })).toBe(true);
    expect(isTokenExpired({ authType: 'oauth2', oauth2: { accessToken: 'at' } }, { nowMs: expiry })).toBe(
      false,
    );
    expect(isTokenExpired(token)).toBe(false);
  });

  it('keeps the old (nowMs, skewSeconds) signature as a deprecated overload', () => {
    expect(isTokenExpired(token, expiry - 20_000)).toBe(true);
    expect(isTokenExpired(token, expiry - 20_000, 10)).toBe(false);
    expect(isTokenExpired(token, undefined, 10)).toBe(false);
  });
});
