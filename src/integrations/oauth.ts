import type { Clock } from '../platform/clock.js';
import { isRefused, type IntegrationErrorClass } from './errors.js';
import { badResponse, callProvider, errorForStatus, isOk, silentLogger, type FetchLike, type ProviderLogger } from './http.js';

/** Renew this long before the token expires (spec 5.7: 60 seconds). */
export const TOKEN_RENEW_BEFORE_MS = 60_000;

export interface ClientCredentialsOptions {
  /** The integration's error class (its failures are thrown as it). */
  errors: IntegrationErrorClass;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  fetch: FetchLike;
  clock: Clock;
  timeoutMs: number;
  renewBeforeMs?: number;
  log?: ProviderLogger;
}

interface CachedToken {
  value: string;
  expiresAt: number;
  renewAt: number;
}

/**
 * OAuth 2.0 client-credentials grant (RFC 6749 4.4) with a cached token.
 * - A token is reused until `renewBeforeMs` before it expires (or half its lifetime, when shorter).
 * - Concurrent callers needing a new token share one token request.
 * - If renewal fails while the cached token is still valid, the cached token is used and a
 *   warning logged; once expired, the failure reaches the caller.
 */
export class ClientCredentialsToken {
  private cached: CachedToken | null = null;
  private inFlight: Promise<string> | null = null;
  private readonly log: ProviderLogger;
  private readonly renewBeforeMs: number;

  constructor(private readonly opts: ClientCredentialsOptions) {
    this.log = opts.log ?? silentLogger;
    this.renewBeforeMs = opts.renewBeforeMs ?? TOKEN_RENEW_BEFORE_MS;
  }

  async get(): Promise<string> {
    const now = this.opts.clock.now().getTime();
    const cached = this.cached;
    if (cached && now < cached.renewAt) return cached.value;
    if (!this.inFlight) {
      this.inFlight = this.request().finally(() => {
        this.inFlight = null;
      });
    }
    try {
      return await this.inFlight;
    } catch (err) {
      // Renewal failed but the old token has not expired yet: keep working with it.
      if (cached && this.cached === cached && this.opts.clock.now().getTime() < cached.expiresAt) {
        this.log.warn({ err: (err as Error).message, provider: this.opts.errors.provider }, 'token renewal failed; using the current token until it expires');
        return cached.value;
      }
      throw err;
    }
  }

  /** Forget a token the provider rejected (401), so the next `get()` asks for a new one. */
  invalidate(token: string): void {
    if (this.cached?.value === token) this.cached = null;
  }

  private async request(): Promise<string> {
    const { errors } = this.opts;
    const provider = errors.provider;
    const startedAt = this.opts.clock.now().getTime();
    const res = await callProvider({
      errors,
      fetch: this.opts.fetch,
      method: 'POST',
      url: this.opts.tokenUrl,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: this.opts.clientId,
        client_secret: this.opts.clientSecret,
      }).toString(),
      timeoutMs: this.opts.timeoutMs,
    });
    if (!isOk(res.status)) {
      const err = errorForStatus(errors, 'token request', res);
      // A 400/401 from the token endpoint is a configuration problem (wrong client id or secret).
      if (isRefused(err)) this.log.error({ provider, status: res.status, code: err.code }, 'OAuth client credentials refused');
      throw err;
    }
    const body = res.body as { access_token?: unknown; expires_in?: unknown; token_type?: unknown } | null;
    const value = body?.access_token;
    const expiresIn = Number(body?.expires_in);
    if (typeof value !== 'string' || !value || !Number.isFinite(expiresIn) || expiresIn <= 0) {
      throw badResponse(errors, 'token request', res, 'no access_token / expires_in');
    }
    if (typeof body?.token_type === 'string' && body.token_type.toLowerCase() !== 'bearer') {
      throw new errors('unavailable', `${provider} token request: unsupported token_type ${body.token_type}`, { reason: 'bad_response', status: res.status });
    }
    const lifetime = expiresIn * 1000;
    const expiresAt = startedAt + lifetime;
    this.cached = { value, expiresAt, renewAt: expiresAt - Math.min(this.renewBeforeMs, lifetime / 2) };
    this.log.debug({ provider, expiresIn }, 'OAuth token obtained');
    return value;
  }
}
