/**
 * The public keys provider_c signs its webhooks with, fetched from a JWKS URL (`{ keys: [JWK...] }`) and
 * cached per URL:
 * - a key is served from the cache while the set is younger than `maxAgeMs` (10 min); an older set is
 *   fetched again on use (and kept, stale, if that fetch fails: a provider outage does not stop webhooks);
 * - a `kid` the cache does not know makes one fetch (concurrent callers share it), so a webhook signed
 *   with a freshly rotated key verifies at once;
 * - when such a fetch still does not have the `kid`, unknown kids are answered from the cache for
 *   `unknownKidCooldownMs` (30 s): forged tokens with random kids cannot make us hammer the provider.
 * Only RSA keys with a `kid`, for signing (`use` absent or `sig`) and RS256 (`alg` absent or RS256), are kept.
 */
import { importJWK, type JWK } from 'jose';
import { systemClock, type Clock } from '../../platform/clock.js';
import { callProvider, errorForStatus, isOk, type FetchLike } from '../http.js';
import { ProviderCError } from './errors.js';

type PublicKey = Awaited<ReturnType<typeof importJWK>>;

export interface JwksCacheOptions {
  /** How the JWKS is fetched (tests and the in-process simulator pass `injectFetch`). Default: global fetch. */
  fetch?: FetchLike;
  clock?: Clock;
  /** Deadline of one JWKS fetch (default 5 s). */
  timeoutMs?: number;
  maxAgeMs?: number;
  unknownKidCooldownMs?: number;
}

interface Entry {
  keys: Map<string, PublicKey>;
  fetchedAt: number;
  /** Until then a kid missing from `keys` is unknown without a new fetch. */
  unknownUntil: number;
  inFlight: Promise<void> | null;
}

export type KeyLookup = { key: PublicKey } | { key: null; reason: 'unknown_kid' | 'jwks_unavailable'; message: string };

export class ProviderCJwksCache {
  private readonly entries = new Map<string, Entry>();
  private readonly fetchFn: FetchLike;
  private readonly clock: Clock;
  private readonly timeoutMs: number;
  private readonly maxAgeMs: number;
  private readonly cooldownMs: number;
  /** JWKS fetches made, successful or not (tests count refreshes). */
  fetches = 0;

  constructor(opts: JwksCacheOptions = {}) {
    this.fetchFn = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.clock = opts.clock ?? systemClock;
    this.timeoutMs = opts.timeoutMs ?? 5_000;
    this.maxAgeMs = opts.maxAgeMs ?? 600_000;
    this.cooldownMs = opts.unknownKidCooldownMs ?? 30_000;
  }

  /** The public key `kid` of the set at `url`, refreshing the set when it is old or does not have it. */
  async key(url: string, kid: string): Promise<KeyLookup> {
    const now = this.clock.now().getTime();
    let entry = this.entries.get(url);
    const fresh = entry !== undefined && now - entry.fetchedAt < this.maxAgeMs;
    if (entry && fresh && entry.keys.has(kid)) return { key: entry.keys.get(kid)! };
    if (entry && fresh && now < entry.unknownUntil) return unknown(kid, url);
    try {
      await this.refresh(url);
    } catch (err) {
      const stale = entry?.keys.get(kid);
      if (stale) return { key: stale };
      return { key: null, reason: 'jwks_unavailable', message: `JWKS at ${url} could not be read: ${(err as Error).message}` };
    }
    entry = this.entries.get(url)!;
    const key = entry.keys.get(kid);
    if (key) return { key };
    entry.unknownUntil = this.clock.now().getTime() + this.cooldownMs;
    return unknown(kid, url);
  }

  /** The kids cached for `url` (empty before the first fetch). */
  kids(url: string): string[] {
    return [...(this.entries.get(url)?.keys.keys() ?? [])];
  }

  /** Forgets every cached set. */
  clear(): void {
    this.entries.clear();
  }

  private refresh(url: string): Promise<void> {
    const existing = this.entries.get(url);
    if (existing?.inFlight) return existing.inFlight;
    const p = this.load(url).finally(() => {
      const e = this.entries.get(url);
      if (e) e.inFlight = null;
    });
    if (existing) existing.inFlight = p;
    else this.entries.set(url, { keys: new Map(), fetchedAt: -Infinity, unknownUntil: 0, inFlight: p });
    return p;
  }

  private async load(url: string): Promise<void> {
    this.fetches++;
    const res = await callProvider({
      errors: ProviderCError,
      fetch: this.fetchFn,
      method: 'GET',
      url,
      headers: { accept: 'application/json' },
      timeoutMs: this.timeoutMs,
    });
    if (!isOk(res.status)) throw errorForStatus(ProviderCError, 'JWKS fetch', res);
    const list = (res.body as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(list)) throw new ProviderCError('unavailable', 'provider_c JWKS fetch: the answer has no keys array', { reason: 'bad_response' });
    const keys = new Map<string, PublicKey>();
    for (const jwk of list as JWK[]) {
      if (!jwk || jwk.kty !== 'RSA' || typeof jwk.kid !== 'string' || (jwk.use && jwk.use !== 'sig') || (jwk.alg && jwk.alg !== 'RS256')) continue;
      try {
        keys.set(jwk.kid, await importJWK({ kty: jwk.kty, n: jwk.n, e: jwk.e }, 'RS256'));
      } catch {
        /* a key we cannot import is one we cannot verify with */
      }
    }
    const entry = this.entries.get(url)!;
    Object.assign(entry, { keys, fetchedAt: this.clock.now().getTime(), unknownUntil: 0 });
  }
}

const unknown = (kid: string, url: string): KeyLookup => ({ key: null, reason: 'unknown_kid', message: `kid ${JSON.stringify(kid)} is not in the JWKS at ${url}` });
