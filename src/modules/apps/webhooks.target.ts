import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

/**
 * Where a webhook may go. An App's `webhookUrl` is chosen by its publisher; without this check a webhook
 * could be aimed at the service's own network (databases, metadata endpoints, admin ports). The host is
 * resolved here, every address it resolves to is checked, and the connection goes to a checked address
 * (pinned: the socket does not resolve the name again), so a DNS answer that changes between the check
 * and the connection (rebinding) cannot reach a refused address.
 * `WEBHOOKS_ALLOW_PRIVATE_TARGETS=true` lifts the check (development and tests).
 */

export type AddressClass =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'cgnat'
  | 'multicast'
  | 'reserved';

type V4Range = readonly [prefix: string, bits: number, cls: AddressClass];

/** IPv4 ranges that are never a public webhook receiver. */
const V4_RANGES: readonly V4Range[] = [
  ['0.0.0.0', 8, 'unspecified'], // "this network"
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments
  ['192.0.2.0', 24, 'reserved'], // documentation
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'], // benchmarking
  ['198.51.100.0', 24, 'reserved'], // documentation
  ['203.0.113.0', 24, 'reserved'], // documentation
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // future use and 255.255.255.255 broadcast
];

function v4ToInt(address: string): number | null {
  const parts = address.split('.');
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    n = n * 256 + Number(p);
  }
  return n;
}

function classifyV4(n: number): AddressClass | null {
  for (const [prefix, bits, cls] of V4_RANGES) {
    const base = v4ToInt(prefix)!;
    const size = 2 ** (32 - bits);
    if (n >= base && n < base + size) return cls;
  }
  return null;
}

/** The 16 bytes of an IPv6 address (zone id dropped, a dotted IPv4 tail accepted), or null when it is not one. */
export function parseV6(address: string): number[] | null {
  let text = address.replace(/^\[|\]$/g, '');
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  if (isIP(text) !== 6) return null;
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    // A dotted IPv4 tail (::ffff:10.0.0.1) becomes its two last groups.
    const n = v4ToInt(last);
    if (n === null) return null;
    text = `${text.slice(0, lastColon + 1)}${((n >>> 16) & 0xffff).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const words = (s: string) => (s === '' ? [] : s.split(':').map((w) => (/^[0-9a-f]{1,4}$/i.test(w) ? parseInt(w, 16) : NaN)));
  const left = words(halves[0]);
  const right = halves.length === 2 ? words(halves[1]) : [];
  const missing = 8 - left.length - right.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...left, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...right];
  if (groups.some((g) => Number.isNaN(g))) return null;
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

const v4Of = (b: number[], at: number) => ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0;
const zeros = (b: number[], from: number, to: number) => b.slice(from, to).every((x) => x === 0);

function classifyV6(b: number[]): AddressClass | null {
  if (zeros(b, 0, 16)) return 'unspecified';
  if (zeros(b, 0, 15) && b[15] === 1) return 'loopback';
  // IPv4-mapped ::ffff:a.b.c.d and NAT64 64:ff9b::a.b.c.d reach the IPv4 address they carry.
  if (zeros(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return classifyV4(v4Of(b, 12));
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(b, 4, 12)) return classifyV4(v4Of(b, 12));
  // 6to4 2002:AABB:CCDD::/48 carries the IPv4 address AA.BB.CC.DD.
  if (b[0] === 0x20 && b[1] === 0x02) return classifyV4(v4Of(b, 2));
  if (zeros(b, 0, 12)) return 'reserved'; // IPv4-compatible ::a.b.c.d (deprecated)
  if (b[0] === 0xff) return 'multicast';
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0x80) return 'link-local'; // fe80::/10
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0xc0) return 'private'; // fec0::/10, the old site-local
  if ((b[0] & 0xfe) === 0xfc) return 'unique-local'; // fc00::/7
  if (b[0] === 0x01 && b[1] === 0x00 && zeros(b, 2, 8)) return 'reserved'; // 100::/64 discard
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x0d && b[3] === 0xb8) return 'reserved'; // 2001:db8::/32 documentation
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x00 && b[3] === 0x00) return 'reserved'; // 2001::/32 Teredo
  return null;
}

/**
 * Why an address may not receive webhooks (its class), or null for a public address. IPv4 and IPv6, with the
 * IPv4 address inside IPv4-mapped, NAT64 and 6to4 IPv6 addresses checked as IPv4. Not an address: 'reserved'.
 */
export function classifyAddress(address: string): AddressClass | null {
  const v4 = v4ToInt(address);
  if (v4 !== null) return classifyV4(v4);
  const v6 = parseV6(address);
  return v6 ? classifyV6(v6) : 'reserved';
}

/** A target that will never be allowed as it is (bad URL, refused address): not worth a retry. */
export class TargetRefused extends Error {
  readonly permanent = true;
}

export interface CheckedTarget {
  url: URL;
  /** The address the socket connects to (checked). */
  address: string;
  family: 4 | 6;
}

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Parses and checks a webhook URL: http(s) only, no credentials; the host resolved (every address) and each
 * address checked unless `allowPrivate`. Throws `TargetRefused` for a target never allowed, and the DNS
 * error (retryable) when the name does not resolve now.
 */
export async function checkTarget(rawUrl: string, opts: { allowPrivate: boolean; resolve?: Resolver }): Promise<CheckedTarget> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new TargetRefused('webhook URL is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TargetRefused(`webhook URL scheme ${url.protocol} is not allowed`);
  if (url.username || url.password) throw new TargetRefused('webhook URL must not carry credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host);
  const addresses = literal ? [{ address: host, family: literal }] : await (opts.resolve ?? systemResolver)(host);
  if (!addresses.length) throw new Error(`webhook host ${host} resolved to no address`);
  if (!opts.allowPrivate) {
    for (const { address } of addresses) {
      const cls = classifyAddress(address);
      if (cls) throw new TargetRefused(`webhook host ${host} resolves to ${address} (${cls}): refused (WEBHOOKS_ALLOW_PRIVATE_TARGETS is off)`);
    }
  }
  const [first] = addresses;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

export interface PostResult {
  statusCode: number;
  /** The `Retry-After` header, as sent. */
  retryAfter: string | null;
}

/** A lookup that answers the checked address whatever name is asked: the socket cannot be sent elsewhere. */
function pinnedLookup(target: CheckedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs `body` to the checked target, connecting to its checked address (the Host header and TLS name are
 * the URL's). Redirects are not followed (a 3xx is an answer like any other non-2xx). The whole exchange
 * (connect, send, status and headers, up to 64 KiB of answer) must end within `timeoutMs`.
 */
export function postJson(target: CheckedTarget, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostResult> {
  const { url } = target;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'restaurant-ops-webhooks/1' },
        lookup: pinnedLookup(target),
        agent: false,
      },
      (res) => {
        const raw = res.headers['retry-after'];
        const result = { statusCode: res.statusCode ?? 0, retryAfter: typeof raw === 'string' ? raw : null };
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) {
            res.destroy();
            finish(result);
          }
        });
        res.on('end', () => finish(result));
        res.on('error', () => finish(result));
      },
    );
    let done = false;
    const finish = (result: PostResult | Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const timer = setTimeout(() => finish(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (err) => finish(err));
    req.end(body);
  });
}
