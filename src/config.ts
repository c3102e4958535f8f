import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { envReader } from './platform/env.js';
import { parseIntegrationsConfig, type IntegrationsConfig } from './integrations/registry.js';
import { passwordProblem } from './platform/auth/passwords.js';

export type Role = 'api' | 'worker' | 'all';
export type LogFormat = 'pretty' | 'json';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  jwtSecret: string;
  encryptionKey: Buffer;
  bcryptCost: number;
  logLevel: string;
  /** `pretty` (human-readable lines, pino-pretty) or `json` (one JSON object a line). Unset: json. */
  logFormat?: LogFormat;
  superadminEmail: string | undefined;
  superadminPassword: string | undefined;
  seedDemo: boolean;
  publicUrl: string;
  /** What this process runs: `api` (HTTP + WebSocket), `worker` (job handlers + scheduler) or `all` (default). */
  role: Role;
  /** External systems (gateway_a, wallet...), by name. Optional so a hand-built config gets the in-process simulators. */
  integrations?: IntegrationsConfig;
  /**
   * Which proxies' X-Forwarded-For to believe (client IPs for rate limits and logs): false (default),
   * true (any), a hop count, or a comma-separated list of addresses/CIDRs.
   */
  trustProxy?: boolean | number | string;
  /** Outgoing mail (password reset links): `smtp://` or `smtps://` URL; unset = messages are written to the log. */
  smtpUrl?: string;
  /** Sender of outgoing mail; default `no-reply@<PUBLIC_URL host>`. */
  mailFrom?: string;
  /**
   * Limit on public reservation requests (`POST /t/:slug/reservations`), counted per tenant and client
   * address, accepted requests only. Unset or null: off (RESERVATION_RATE_LIMIT=off, the default).
   */
  reservationRateLimit?: RateLimitSetting | null;
  /**
   * Limit on guest orders (`POST /t/:slug/orders` without a token), per tenant and client address.
   * Unset: DEFAULT_GUEST_ORDER_LIMIT; null: off (GUEST_ORDER_RATE_LIMIT=off).
   */
  guestOrderRateLimit?: RateLimitSetting | null;
  /** The public developer API (`/public/v1`): its rate limits, deprecations and the legacy key's sunset. Unset: the defaults. */
  publicApi?: PublicApiConfig;
  /**
   * Webhooks to Apps may go to private, loopback or link-local addresses (development and tests only;
   * WEBHOOKS_ALLOW_PRIVATE_TARGETS=true). Default false.
   */
  webhooksAllowPrivateTargets?: boolean;
  /** Longest a database statement may run (PostgreSQL `statement_timeout`), ms. Unset: 15000. */
  dbStatementTimeoutMs?: number;
  /** Longest a request waits to get a database connection (pg pool `connectionTimeoutMillis`), ms. Unset: 5000. */
  dbAcquireTimeoutMs?: number;
  /** Bearer token `/metrics` asks for (METRICS_TOKEN); unset: served to loopback callers only. */
  metricsToken?: string;
  /**
   * Other origins allowed to call the API from a browser (CORS_ORIGINS, comma-separated, e.g. a panel hosted
   * elsewhere): echoed in Access-Control-Allow-Origin, no credentials. Unset: none (the pages are same-origin).
   */
  corsOrigins?: string[];
}

/** A public API route's deprecation (spec section 9): `Sunset` from `sunset`, 410 after it. */
export interface Deprecation {
  sunset: Date;
  /** The successor's path, sent as `Link: <successor>; rel="successor-version"`. */
  successor: string;
}

export interface PublicApiConfig {
  /** Per credential (per client address without one). Default 200 per rolling 60 s (spec section 8). */
  rateLimit: RateLimitSetting;
  /** The spec's planned per-endpoint limits (`PLANNED_ENDPOINT_LIMITS`), off by default. */
  endpointLimits: boolean;
  /** Deprecated routes by `METHOD /path` as registered (`GET /public/v1/orders`). */
  deprecations: Record<string, Deprecation>;
  /** The legacy `x-api-key` credential's deprecation; its successor is the installation token. */
  legacyKey: Deprecation | null;
}

export const DEFAULT_PUBLIC_API_LIMIT: RateLimitSetting = { limit: 200, windowMs: 60_000 };

/** How the legacy key is announced before a sunset date is set: deprecated, its successor named, no date yet. */
export const LEGACY_KEY_SUCCESSOR = '/docs/public-api#installation-tokens';

function parseDate(name: string, value: string): Date {
  const d = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(d.getTime())) throw new ConfigError(`${name} must be an ISO 8601 date, e.g. 2027-03-01`);
  return d;
}

/**
 * PUBLIC_API_DEPRECATIONS: JSON `{ "GET /public/v1/orders": { "sunset": "2027-03-01", "successor": "/public/v2/orders" } }`.
 * LEGACY_API_KEY_SUNSET: the date after which `x-api-key` answers 410.
 */
export function parsePublicApiConfig(env: NodeJS.ProcessEnv): PublicApiConfig {
  const deprecations: Record<string, Deprecation> = {};
  if (env.PUBLIC_API_DEPRECATIONS) {
    let raw: unknown;
    try {
      raw = JSON.parse(env.PUBLIC_API_DEPRECATIONS);
    } catch {
      throw new ConfigError('PUBLIC_API_DEPRECATIONS must be JSON: { "GET /public/v1/orders": { "sunset": "2027-03-01", "successor": "/public/v2/orders" } }');
    }
    for (const [route, d] of Object.entries(raw as Record<string, { sunset?: string; successor?: string }>)) {
      if (!/^(GET|POST|PUT|PATCH|DELETE) \/public\/v\d+\//.test(route) || typeof d?.sunset !== 'string' || typeof d.successor !== 'string') {
        throw new ConfigError(`PUBLIC_API_DEPRECATIONS: ${route} needs "METHOD /public/vN/...", a sunset date and a successor path`);
      }
      deprecations[route] = { sunset: parseDate(`PUBLIC_API_DEPRECATIONS ${route}`, d.sunset), successor: d.successor };
    }
  }
  const sunset = env.LEGACY_API_KEY_SUNSET ? parseDate('LEGACY_API_KEY_SUNSET', env.LEGACY_API_KEY_SUNSET) : null;
  return {
    rateLimit: parseRateLimitSetting('PUBLIC_API_RATE_LIMIT', env.PUBLIC_API_RATE_LIMIT) ?? DEFAULT_PUBLIC_API_LIMIT,
    endpointLimits: /^(on|true|1|yes)$/i.test(env.PUBLIC_API_ENDPOINT_LIMITS ?? ''),
    deprecations,
    legacyKey: sunset ? { sunset, successor: LEGACY_KEY_SUCCESSOR } : null,
  };
}

/** A rolling-window rate limit: `limit` accepted requests per `windowMs`. */
export interface RateLimitSetting {
  limit: number;
  windowMs: number;
}

const WINDOW_UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * `off` (or unset) -> null; `N/<window>` -> N requests per rolling window, the window a count and a unit
 * `s`, `m` or `h` (`10/60s`, `10/1m`, `10/m`, also `10/minute`). N from 1 to 100000, the window 1 s to 1 h.
 */
/**
 * Guest orders from one address of one restaurant: a table of friends on the restaurant's Wi-Fi (one
 * address behind its router) orders a few rounds an hour; a script ordering from outside does not get far.
 */
export const DEFAULT_GUEST_ORDER_LIMIT: RateLimitSetting = { limit: 30, windowMs: 10 * 60_000 };

export function parseRateLimitSetting(name: string, value: string | undefined): RateLimitSetting | null {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || v === 'off') return null;
  const m = /^(\d+)\s*\/\s*(\d*)\s*(s|sec|seconds?|m|min|minutes?|h|hours?)$/.exec(v);
  const limit = m ? Number(m[1]) : NaN;
  const windowMs = m ? Number(m[2] || 1) * WINDOW_UNITS[m[3][0]] : NaN;
  if (!m || limit < 1 || limit > 100_000 || windowMs < 1_000 || windowMs > 3_600_000) {
    throw new ConfigError(`${name} must be off or N/window, e.g. 10/1m or 30/60s (N 1-100000, window 1s to 1h)`);
  }
  return { limit, windowMs };
}

function parseTrustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  if (/^[0-9a-fA-F.:/,\s]+$/.test(value)) return value;
  throw new ConfigError('TRUST_PROXY must be true, false, a hop count or a list of addresses/CIDRs');
}

export class ConfigError extends Error {}

function parseSmtpUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (!/^smtps?:\/\/[^/]/i.test(value)) throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL');
  return value;
}

/** A password chosen in the environment must fit bcrypt as one set through the API (8 characters to 72 bytes). */
function checkPasswordSetting(name: string, value: string | undefined) {
  const problem = value ? passwordProblem(value) : null;
  if (problem) throw new ConfigError(`${name} ${problem}`);
}

/** A key given as 64 hex characters or base64 of 32 bytes. */
export function parseKey(name: string, value: string): Buffer {
  const buf = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (buf.length !== 32) throw new ConfigError(`${name} must be 32 bytes: 64 hex characters or base64`);
  return buf;
}

/**
 * Secrets that are not configured are generated once and kept in the data dir,
 * so a restart of the embedded default keeps tokens and encrypted fields readable.
 */
function keptSecret(dataDir: string, file: string): string {
  const path = join(dataDir, file);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const value = randomBytes(32).toString('hex');
  writeFileSync(path, value + '\n', { mode: 0o600 });
  return value;
}

/** LOG_FORMAT=pretty|json; unset: pretty when stdout is a terminal, JSON otherwise (a pipe, a file, a log collector). */
export function parseLogFormat(value: string | undefined, isTTY: boolean): LogFormat {
  if (value === undefined || value === '') return isTTY ? 'pretty' : 'json';
  if (value === 'pretty' || value === 'json') return value;
  throw new ConfigError('LOG_FORMAT must be pretty or json');
}

function parseRole(value: string | undefined): Role {
  if (value === undefined || value === '') return 'all';
  if (value === 'api' || value === 'worker' || value === 'all') return value;
  throw new ConfigError('ROLE must be one of: api, worker, all');
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(env.DATA_DIR || './data');
  const read = readerFor(env, dataDir);
  const port = read.int('PORT', 3000, 0, 65535);
  const host = env.HOST || '0.0.0.0';
  const jwtSecret = env.JWT_SECRET || keptSecret(dataDir, 'jwt-secret');
  if (jwtSecret.length < 32) throw new ConfigError('JWT_SECRET must be at least 32 characters');
  checkPasswordSetting('SUPERADMIN_PASSWORD', env.SUPERADMIN_PASSWORD);
  checkPasswordSetting('DEMO_PASSWORD', env.DEMO_PASSWORD);
  const encryptionKey = parseKey('ENCRYPTION_KEY', env.ENCRYPTION_KEY || keptSecret(dataDir, 'encryption-key'));
  return {
    port,
    host,
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir,
    jwtSecret,
    encryptionKey,
    bcryptCost: read.int('BCRYPT_COST', 12, 4, 15),
    logLevel: env.LOG_LEVEL || 'info',
    logFormat: parseLogFormat(env.LOG_FORMAT, process.stdout.isTTY === true),
    superadminEmail: env.SUPERADMIN_EMAIL || undefined,
    superadminPassword: env.SUPERADMIN_PASSWORD || undefined,
    seedDemo: env.SEED_DEMO !== 'false',
    publicUrl: env.PUBLIC_URL || `http://localhost:${port}`,
    role: parseRole(env.ROLE),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    smtpUrl: parseSmtpUrl(env.SMTP_URL),
    mailFrom: env.MAIL_FROM || undefined,
    // Integrations (payment gateways; fiscal, PIX and delivery providers to come) each parse their own
    // variables in `src/integrations/<name>/config.ts`, in the order of `src/integrations/registry.ts`.
    reservationRateLimit: parseRateLimitSetting('RESERVATION_RATE_LIMIT', env.RESERVATION_RATE_LIMIT),
    guestOrderRateLimit: env.GUEST_ORDER_RATE_LIMIT === undefined ? undefined : parseRateLimitSetting('GUEST_ORDER_RATE_LIMIT', env.GUEST_ORDER_RATE_LIMIT),
    publicApi: parsePublicApiConfig(env),
    webhooksAllowPrivateTargets: read.flag('WEBHOOKS_ALLOW_PRIVATE_TARGETS', false),
    dbStatementTimeoutMs: read.int('DB_STATEMENT_TIMEOUT_MS', 15_000, 100, 3_600_000),
    dbAcquireTimeoutMs: read.int('DB_ACQUIRE_TIMEOUT_MS', 5_000, 100, 120_000),
    metricsToken: env.METRICS_TOKEN || undefined,
    corsOrigins: parseCorsOrigins(env.CORS_ORIGINS),
    integrations: parseIntegrationsConfig(read),
  };
}

/** CORS_ORIGINS: comma-separated origins (`scheme://host[:port]`, no path), as browsers send them in `Origin`. */
export function parseCorsOrigins(value: string | undefined): string[] {
  const origins: string[] = [];
  for (const item of (value ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    let url: URL | undefined;
    try {
      url = new URL(item);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== item.replace(/\/$/, '').toLowerCase()) {
      throw new ConfigError(`CORS_ORIGINS: ${item} is not an origin (scheme://host[:port], e.g. https://panel.example.com)`);
    }
    origins.push(url.origin);
  }
  return origins;
}

/** The reader of every setting: failures are `ConfigError`s, generated secrets are kept in the data dir. */
function readerFor(env: NodeJS.ProcessEnv, dataDir: string) {
  return envReader(env, { keptSecret: (file) => keptSecret(dataDir, file), fail: (message) => new ConfigError(message) });
}

/** The integrations' settings alone (each parses its own variables: `src/integrations/<name>/config.ts`). */
export function loadIntegrationsConfig(env: NodeJS.ProcessEnv, dataDir: string): IntegrationsConfig {
  return parseIntegrationsConfig(readerFor(env, dataDir));
}
