import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base64ByteLength, base64ToUtf8, bytesToBase64Url, utf8ByteLength, utf8ToBase64 } from './bytes.js';
import { sha256, sha256Hex } from './sha256.js';

describe('sha256 (portable)', () => {
  it('matches node:crypto on the FIPS examples and on random lengths across block boundaries', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    for (let n = 0; n < 200; n++) {
      const bytes = randomBytes(n);
      expect(sha256Hex(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
    const text = 'naïve ✓ 𝄞';
    expect(bytesToBase64Url(sha256(text))).toBe(createHash('sha256').update(text).digest('base64url'));
  });

  it('base64 helpers agree with Buffer', () => {
    for (const text of ['', 'a', 'ab', 'abc', 'naïve ✓ 𝄞', 'x'.repeat(70_000)]) {
      const b64 = utf8ToBase64(text);
      expect(b64).toBe(Buffer.from(text).toString('base64'));
      expect(base64ToUtf8(b64)).toBe(text);
      expect(base64ByteLength(b64)).toBe(Buffer.byteLength(b64, 'base64'));
      expect(utf8ByteLength(text)).toBe(Buffer.byteLength(text, 'utf8'));
    }
  });
});
