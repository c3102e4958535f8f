import type { Clock } from '../platform/clock.js';
import { isRefused, type IntegrationErrorClass } from './errors.js';
import { badResponse, callProvider, errorForStatus, isOk, joinUrl, silentLogger, type FetchLike, type ProviderLogger, type ProviderResponse } from './http.js';

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
  /**
   * How the client authenticates (RFC 6749 2.3.1): `body` puts `client_id` / `client_secret` in the form
   * (the default), `basic` sends them as HTTP Basic (`client_secret_basic`, which the Bacen API Pix requires).
   */
  clientAuth?: 'body' | 'basic';
  /** Space-separated scopes to ask for (`scope` parameter); none: the provider's default. */
  scope?: string;
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
    const { clientId, clientSecret, clientAuth = 'body', scope } = this.opts;
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (clientAuth === 'basic') {
      // RFC 6749 2.3.1: each part form-encoded before the Basic encoding.
      const pair = `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    } else {
      form.set('client_id', clientId);
      form.set('client_secret', clientSecret);
    }
    if (scope) form.set('scope', scope);
    const res = await callProvider({
      errors,
      fetch: this.opts.fetch,
      method: 'POST',
      url: this.opts.tokenUrl,
      headers,
      body: form.toString(),
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

export interface BearerApiOptions extends Omit<ClientCredentialsOptions, 'tokenUrl'> {
  /** The API's base URL; the token endpoint is its `/oauth/token`. */
  baseUrl: string;
  /** Headers every call carries (gateway_a's `x-test-scope`). */
  headers?: Record<string, string>;
}

/** One JSON call to the provider's API with the bearer token; `extra` headers for this call only. */
export type BearerCall = (method: string, path: string, body?: unknown, extra?: Record<string, string>) => Promise<ProviderResponse>;

/**
 * Calls with a cached client-credentials token from `<baseUrl>/oauth/token` (JSON in and out, the deadline
 * of `timeoutMs`). A 401 (token revoked or expired early) gets one retry with a new token.
 */
export function bearerApi({ baseUrl, headers: always = {}, ...credentials }: BearerApiOptions): BearerCall {
  const { errors, fetch, timeoutMs } = credentials;
  const token = new ClientCredentialsToken({ ...credentials, tokenUrl: joinUrl(baseUrl, '/oauth/token') });
  const send = (method: string, path: string, value: string, body: unknown, extra: Record<string, string>) => {
    const headers: Record<string, string> = { authorization: `Bearer ${value}`, accept: 'application/json', ...always, ...extra };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const url = joinUrl(baseUrl, path);
    return callProvider({ errors, fetch, method, url, headers, body: body === undefined ? undefined : JSON.stringify(body), timeoutMs });
  };
  return async (method, path, body, extra = {}) => {
    let value = await token.get();
    let res = await send(method, path, value, body, extra);
    if (res.status === 401) {
      token.invalidate(value);
      value = await token.get();
      res = await send(method, path, value, body, extra);
    }
    return res;
  };
}
