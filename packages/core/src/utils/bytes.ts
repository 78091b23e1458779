// Base64 and UTF-8 helpers on web-standard APIs (atob/btoa, TextEncoder, Web Crypto), so the root
// of @adk/core needs no `Buffer`.

const encoder = /* @__PURE__ */ new TextEncoder();
const decoder = /* @__PURE__ */ new TextDecoder();

/** Standard base64 of `bytes`. */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}

/** The bytes of standard or URL-safe base64 (padding optional). */
export function base64ToBytes(base64: string): Uint8Array {
  const normal = base64.replace(/-/g, '+').replace(/_/g, '/').replace(/\s/g, '');
  const binary = atob(normal + '='.repeat((4 - (normal.length % 4)) % 4));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** URL-safe base64 without padding (RFC 4648 §5). */
export function bytesToBase64Url(bytes: Uint8Array): string {
  return bytesToBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Standard base64 of a string's UTF-8 bytes. */
export function utf8ToBase64(text: string): string {
  return bytesToBase64(encoder.encode(text));
}

/** URL-safe base64 (no padding) of a string's UTF-8 bytes. */
export function utf8ToBase64Url(text: string): string {
  return bytesToBase64Url(encoder.encode(text));
}

/** The UTF-8 string of base64 (standard or URL-safe). Invalid input throws. */
export function base64ToUtf8(base64: string): string {
  return decoder.decode(base64ToBytes(base64));
}

/** The number of UTF-8 bytes of `text`. */
export function utf8ByteLength(text: string): number {
  return encoder.encode(text).byteLength;
}

/** The number of bytes base64 data decodes to, without decoding it (as Buffer.byteLength(…, 'base64')). */
export function base64ByteLength(base64: string): number {
  let length = base64.length;
  while (length > 0 && base64.charCodeAt(length - 1) === 61 /* = */) length--;
  return Math.floor((length * 3) / 4);
}

/** `n` random bytes from Web Crypto. */
export function randomBytes(n: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(n));
}

/** `n` random bytes as URL-safe base64 without padding. */
export function randomBase64Url(n: number): string {
  return bytesToBase64Url(randomBytes(n));
}
