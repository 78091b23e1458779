import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { A2aError } from '../protocol/errors.js';

function v4ToNumber(ip: string): number {
  return ip.split('.').reduce((acc, octet) => (acc << 8) + Number(octet), 0) >>> 0;
}

const PRIVATE_V4: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

/** Loopback, private, link-local, CGNAT, multicast and reserved addresses (v4 and v6). */
export function isPrivateAddress(ip: string): boolean {
  if (isIP(ip) === 4) {
    const n = v4ToNumber(ip);
    return PRIVATE_V4.some(([base, bits]) => {
      const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
      return (n & mask) === (v4ToNumber(base) & mask);
    });
  }
  const v6 = ip.toLowerCase().replace(/^\[|\]$/g, '');
  if (v6 === '::1' || v6 === '::') return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v6);
  if (mapped?.[1]) return isPrivateAddress(mapped[1]);
  return /^(fc|fd|fe8|fe9|fea|feb|ff)/.test(v6);
}

export interface SsrfGuardOptions {
  /** Allow loopback and private addresses (tests, same-host deployments). Default false. */
  allowPrivateNetworks?: boolean;
  /** Host names always allowed, whatever they resolve to. */
  allowedHosts?: string[];
}

/**
 * Refuses webhook URLs that are not http(s) or that point (directly or via DNS) at private or
 * loopback addresses. Checked when a config is created and again before each delivery, so a DNS
 * change cannot turn an accepted URL into an internal one.
 */
export async function assertPublicUrl(raw: string, options: SsrfGuardOptions = {}): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new A2aError('INVALID_PARAMS', `Invalid webhook URL: ${raw}`, {
      fieldViolations: [{ field: 'url', description: 'not a valid URL' }],
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new A2aError('INVALID_PARAMS', 'Webhook URLs must use http or https', {
      fieldViolations: [{ field: 'url', description: 'scheme must be http or https' }],
    });
  }
  if (options.allowPrivateNetworks) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (options.allowedHosts?.some((h) => h.toLowerCase() === host)) return url;
  const refuse = () =>
    new A2aError('INVALID_PARAMS', `Webhook URL ${url.origin} points at a private or loopback address`, {
      fieldViolations: [
        { field: 'url', description: 'private, loopback and link-local addresses are refused' },
      ],
    });
  if (host === 'localhost' || host.endsWith('.localhost')) throw refuse();
  if (isIP(host)) {
    if (isPrivateAddress(host)) throw refuse();
    return url;
  }
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true });
  } catch (cause) {
    throw new A2aError('INVALID_PARAMS', `Webhook host ${host} does not resolve`, { cause });
  }
  if (addresses.length === 0 || addresses.some((a) => isPrivateAddress(a.address))) throw refuse();
  return url;
}
