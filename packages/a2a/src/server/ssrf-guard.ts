import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, type Dispatcher } from 'undici';
import { A2aError } from '../protocol/errors.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** An address in any spelling URL hosts accept: dotted, decimal, octal, hex, `127.1`, `[v6]`. */
function parseAddress(ip: string): Address | undefined {
  const bare = ip.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(bare)) return ipaddr.parse(bare);
  // The WHATWG URL parser canonicalises the IPv4 spellings ipaddr.js does not (e.g. `0x7f000001`).
  try {
    const host = new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname.replace(
      /^\[|\]$/g,
      '',
    );
    return ipaddr.isValid(host) ? ipaddr.parse(host) : undefined;
  } catch {
    return undefined;
  }
}

function v4(bytes: number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes);
}

/**
 * The IPv4 addresses an IPv6 address carries and would reach: IPv4-mapped and -translated
 * (`::ffff:0:0/96`, `::ffff:0:0:0/96`), IPv4-compatible (`::/96`), NAT64 (`64:ff9b::/96`,
 * `64:ff9b:1::/48`), 6to4 (`2002::/16`) and Teredo (`2001::/32`, server and obfuscated client).
 */
function embeddedV4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const b = address.toByteArray();
  const last = [b[12], b[13], b[14], b[15]] as number[];
  switch (address.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
      return [v4(last)];
    case '6to4':
      return [v4([b[2], b[3], b[4], b[5]] as number[])];
    case 'teredo':
      return [v4([b[4], b[5], b[6], b[7]] as number[]), v4(last.map((x) => x ^ 0xff))];
  }
  if (b.slice(0, 12).every((x) => x === 0)) return [v4(last)];
  // 64:ff9b:1::/48 (local-use NAT64, RFC 8215): the IPv4 address sits in the last 32 bits.
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && b[4] === 0 && b[5] === 1)
    return [v4(last)];
  return [];
}

/**
 * Whether an address must not be reached from a webhook: anything but global unicast (loopback,
 * private, link-local, CGNAT, multicast, reserved, documentation, unique-local…), including an IPv6
 * address that embeds such an IPv4 address. Unparseable input counts as private.
 */
export function isPrivateAddress(ip: string): boolean {
  const address = parseAddress(ip);
  if (!address) return true;
  if (address.kind() === 'ipv6') {
    const embedded = embeddedV4(address as ipaddr.IPv6);
    if (embedded.length > 0) return embedded.some((a) => a.range() !== 'unicast');
  }
  return address.range() !== 'unicast';
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface SsrfGuardOptions {
  /** Allow loopback and private addresses (tests, same-host deployments). Default false. */
  allowPrivateNetworks?: boolean;
  /** Host names always allowed, whatever they resolve to. */
  allowedHosts?: string[];
  /** Resolves a host name (default: the system resolver). */
  resolve?: (host: string) => Promise<ResolvedAddress[]>;
}

/** A checked webhook URL and the addresses it may be reached at (undefined: no pinning). */
export interface CheckedUrl {
  url: URL;
  addresses: ResolvedAddress[] | undefined;
}

const invalid = (message: string, description: string, cause?: unknown) =>
  new A2aError('INVALID_PARAMS', message, {
    fieldViolations: [{ field: 'url', description }],
    ...(cause === undefined ? {} : { cause }),
  });

async function systemResolve(host: string): Promise<ResolvedAddress[]> {
  const found = await dnsLookup(host, { all: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

/**
 * Checks a webhook URL: http(s) only, and every address it resolves to must be public. Returns the
 * addresses checked, so that the connection is made to exactly those (see `pinnedDispatcher`):
 * DNS cannot answer differently between the check and the connection.
 */
export async function checkWebhookUrl(raw: string, options: SsrfGuardOptions = {}): Promise<CheckedUrl> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(`Invalid webhook URL: ${raw}`, 'not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalid('Webhook URLs must use http or https', 'scheme must be http or https');
  if (options.allowPrivateNetworks) return { url, addresses: undefined };
  // URL parsing has already turned decimal, octal and hex IPv4 spellings into dotted form.
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const allowed = options.allowedHosts?.some((h) => h.toLowerCase() === host) ?? false;
  const refuse = () =>
    invalid(
      `Webhook URL ${url.origin} points at a private or loopback address`,
      'private, loopback and link-local addresses are refused',
    );
  if (ipaddr.isValid(host)) {
    if (!allowed && isPrivateAddress(host)) throw refuse();
    return { url, addresses: undefined };
  }
  if (!allowed && (host === 'localhost' || host.endsWith('.localhost'))) throw refuse();
  let addresses: ResolvedAddress[];
  try {
    addresses = await (options.resolve ?? systemResolve)(host);
  } catch (cause) {
    throw invalid(`Webhook host ${host} does not resolve`, 'host does not resolve', cause);
  }
  if (addresses.length === 0) throw invalid(`Webhook host ${host} does not resolve`, 'host does not resolve');
  if (!allowed && addresses.some((a) => isPrivateAddress(a.address))) throw refuse();
  return { url, addresses };
}

/**
 * Refuses webhook URLs that are not http(s) or that point (directly or via DNS) at private or
 * loopback addresses.
 */
export async function assertPublicUrl(raw: string, options: SsrfGuardOptions = {}): Promise<URL> {
  return (await checkWebhookUrl(raw, options)).url;
}

/**
 * An undici dispatcher whose connections go only to the checked addresses of `checked` (the host
 * name is still used for TLS and the Host header). Close it after the delivery.
 */
export function pinnedDispatcher(checked: CheckedUrl, timeoutMs: number): Dispatcher {
  const addresses = checked.addresses;
  const lookup: LookupFunction | undefined = addresses
    ? (_host, options, callback) => {
        const first = addresses[0] as ResolvedAddress;
        if ((options as { all?: boolean }).all) callback(null, addresses);
        else callback(null, first.address, first.family);
      }
    : undefined;
  return new Agent({
    connectTimeout: timeoutMs,
    connect: lookup ? { lookup } : {},
    // One delivery, one connection: nothing pooled outlives the check it was made for.
    pipelining: 0,
  });
}
