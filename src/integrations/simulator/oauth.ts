/**
 * The OAuth 2.0 client-credentials side of the simulated providers (RFC 6749 4.4): the token endpoint
 * and the tokens it issued, each with its lifetime and scopes. Shared by gateway_a and pix_psp.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../platform/clock.js';
import { safeEqual } from '../../platform/crypto.js';
import { hide, objectBody, send } from './server.js';

export interface TokenStoreOptions {
  /** Start of every token (`APP_USR-sim-` for gateway_a). */
  prefix?: string;
  /** `token_type` as the provider writes it. */
  tokenType?: string;
  /** Scopes granted when the client asks for none. */
  defaultScope?: string;
  /** Fields the provider adds to its token answer. */
  extra?: Record<string, unknown>;
}

/** OAuth access tokens issued by a simulator, each valid for `ttlSeconds` with its scopes. */
export function tokenStore(clock: Clock, ttlSeconds: number, opts: TokenStoreOptions = {}) {
  const tokens = new Map<string, { expiresAt: number; scopes: ReadonlySet<string> }>();
  const { prefix = 'sim-', tokenType = 'bearer', defaultScope = '', extra = {} } = opts;
  let requests = 0;

  /** The live token of an `Authorization: Bearer <token>` header, if any. */
  function lookup(header: string | undefined) {
    const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
    const t = m ? tokens.get(m[1]) : undefined;
    return t && clock.now().getTime() < t.expiresAt ? t : undefined;
  }

  return {
    /** Token requests received, granted or not. */
    get requests() {
      return requests;
    },
    countRequest() {
      requests++;
    },
    /** A new token with `scope` (space-separated; default `defaultScope`), as the token endpoint answers it. */
    issue(scope?: string) {
      const now = clock.now().getTime();
      for (const [t, { expiresAt }] of tokens) if (expiresAt <= now) tokens.delete(t);
      const value = `${prefix}${randomBytes(24).toString('hex')}`;
      const granted = scope || defaultScope;
      tokens.set(value, { expiresAt: now + ttlSeconds * 1000, scopes: new Set(granted.split(/\s+/).filter(Boolean)) });
      return { access_token: value, token_type: tokenType, expires_in: ttlSeconds, scope: granted, ...extra };
    },
    /** True for `Bearer <token>` with a token issued here and not expired. */
    valid: (header: string | undefined): boolean => lookup(header) !== undefined,
    /** `unauthorized` without a live token, `forbidden` when it lacks `scope`. */
    check(header: string | undefined, scope: string): 'ok' | 'unauthorized' | 'forbidden' {
      const t = lookup(header);
      if (!t) return 'unauthorized';
      return t.scopes.has(scope) ? 'ok' : 'forbidden';
    },
    /** Revokes every issued token (the next API call gets 401). */
    revoke() {
      tokens.clear();
    },
  };
}
export type TokenStore = ReturnType<typeof tokenStore>;

export interface OAuthRoutesOptions {
  clientId: string;
  clientSecret: string;
  tokens: TokenStore;
  /** Only HTTP Basic client authentication (`client_secret_basic`); default: Basic or the form's parameters. */
  basicOnly?: boolean;
  /** The scopes a client may ask for; asking for another is `invalid_scope`. Default: any. */
  scopes?: readonly string[];
}

/** `POST /oauth/token`: client credentials by form or JSON body parameters, or HTTP Basic. */
export function oauthRoutes(app: FastifyInstance, { clientId, clientSecret, tokens, basicOnly = false, scopes }: OAuthRoutesOptions) {
  if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) {
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
  }

  app.post('/oauth/token', hide, async (req, reply) => {
    const refuse = (status: number, error: string, error_description: string) => send(reply, status, { error, error_description, status });
    tokens.countRequest();
    const b = objectBody(req);
    let id = !basicOnly && typeof b.client_id === 'string' ? b.client_id : '';
    let secret = !basicOnly && typeof b.client_secret === 'string' ? b.client_secret : '';
    const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (basic) {
      const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
      const i = decoded.indexOf(':');
      if (i > 0) {
        id = decodeURIComponent(decoded.slice(0, i));
        secret = decodeURIComponent(decoded.slice(i + 1));
      }
    }
    const asked = typeof b.scope === 'string' ? b.scope.trim() : '';
    const unknown = scopes ? asked.split(/\s+/).filter((s) => s && !scopes.includes(s)) : [];
    if (b.grant_type !== 'client_credentials') return refuse(400, 'unsupported_grant_type', 'only client_credentials is supported');
    if (!safeEqual(id, clientId) || !safeEqual(secret, clientSecret)) {
      return refuse(401, 'invalid_client', basicOnly ? 'client authentication by HTTP Basic failed' : 'invalid client_id or client_secret');
    }
    if (unknown.length) return refuse(400, 'invalid_scope', `unknown scope ${unknown.join(' ')}`);
    return send(reply, 200, tokens.issue(asked || undefined));
  });
}
