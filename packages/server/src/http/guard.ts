import { timingSafeEqual } from 'node:crypto';
import { ServerError } from '../server/errors.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** The host name of a Host header or URL host, lower-cased, without the port. */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end === -1 ? h : h.slice(0, end + 1);
  }
  const colon = h.indexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

/**
 * Host names the server answers to: loopback always, plus `allowedHosts` (exact names, `*` for
 * any, or `.example.com` for a domain and its subdomains). A browser tricked by DNS rebinding
 * sends the attacker's name in Host, so it is refused.
 */
export function hostAllowed(host: string, allowedHosts: readonly string[]): boolean {
  const name = hostName(host);
  if (LOOPBACK_HOSTS.has(name)) return true;
  for (const entry of allowedHosts) {
    const e = entry.trim().toLowerCase();
    if (e === '*') return true;
    if (e.startsWith('.') ? name === e.slice(1) || name.endsWith(e) : hostName(e) === name) return true;
  }
  return false;
}

/**
 * Checks Host and Origin of a request. Origin, when a browser sends one, must be the server's
 * own origin or one of `allowedOrigins` (`*` allows any): pages on other sites cannot drive it.
 */
export function checkRequestOrigin(
  request: { readonly headers: Headers },
  url: URL,
  allowedHosts: readonly string[],
  allowedOrigins: readonly string[],
): void {
  const host = request.headers.get('host') ?? url.host;
  if (!host || !hostAllowed(host, allowedHosts)) {
    throw new ServerError('FORBIDDEN', `Host ${JSON.stringify(host)} is not allowed (see allowedHosts)`);
  }
  const origin = request.headers.get('origin');
  if (origin === null) return;
  if (originAllowed(origin, allowedOrigins)) return;
  const own = `${url.protocol}//${host}`.toLowerCase();
  if (origin.toLowerCase() === own) return;
  throw new ServerError('FORBIDDEN', `Origin ${JSON.stringify(origin)} is not allowed (see allowedOrigins)`);
}

export function originAllowed(origin: string, allowedOrigins: readonly string[]): boolean {
  const o = origin.toLowerCase();
  return allowedOrigins.some((a) => a === '*' || a.toLowerCase() === o);
}

/** Bearer token check in constant time. */
export function checkToken(request: { readonly headers: Headers }, token: string): void {
  const header = request.headers.get('authorization') ?? '';
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  const given = Buffer.from(match?.[1]?.trim() ?? '');
  const expected = Buffer.from(token);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new ServerError('UNAUTHORIZED', 'A valid bearer token is required (Authorization: Bearer <token>)');
  }
}
