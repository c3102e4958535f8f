import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { passwordProblem } from './platform/auth/passwords.js';

export type Role = 'api' | 'worker' | 'all';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  jwtSecret: string;
  encryptionKey: Buffer;
  bcryptCost: number;
  logLevel: string;
  superadminEmail: string | undefined;
  superadminPassword: string | undefined;
  seedDemo: boolean;
  publicUrl: string;
  /** What this process runs: `api` (HTTP + WebSocket), `worker` (job handlers + scheduler) or `all` (default). */
  role: Role;
  /** Payment providers (gateway_a, wallet). Optional so a hand-built config gets the in-process simulators. */
  payments?: PaymentsConfig;
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
  /** Longest a database statement may run (PostgreSQL `statement_timeout`), ms. Unset: 15000. */
  dbStatementTimeoutMs?: number;
  /** Longest a request waits to get a database connection (pg pool `connectionTimeoutMillis`), ms. Unset: 5000. */
  dbAcquireTimeoutMs?: number;
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

function int(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}`);
  return n;
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

function parseRole(value: string | undefined): Role {
  if (value === undefined || value === '') return 'all';
  if (value === 'api' || value === 'worker' || value === 'all') return value;
  throw new ConfigError('ROLE must be one of: api, worker, all');
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(env.DATA_DIR || './data');
  const port = int('PORT', env.PORT, 3000, 0, 65535);
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
    bcryptCost: int('BCRYPT_COST', env.BCRYPT_COST, 12, 4, 15),
    logLevel: env.LOG_LEVEL || 'info',
    superadminEmail: env.SUPERADMIN_EMAIL || undefined,
    superadminPassword: env.SUPERADMIN_PASSWORD || undefined,
    seedDemo: env.SEED_DEMO !== 'false',
    publicUrl: env.PUBLIC_URL || `http://localhost:${port}`,
    role: parseRole(env.ROLE),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    smtpUrl: parseSmtpUrl(env.SMTP_URL),
    mailFrom: env.MAIL_FROM || undefined,
    reservationRateLimit: parseRateLimitSetting('RESERVATION_RATE_LIMIT', env.RESERVATION_RATE_LIMIT),
    dbStatementTimeoutMs: int('DB_STATEMENT_TIMEOUT_MS', env.DB_STATEMENT_TIMEOUT_MS, 15_000, 100, 3_600_000),
    dbAcquireTimeoutMs: int('DB_ACQUIRE_TIMEOUT_MS', env.DB_ACQUIRE_TIMEOUT_MS, 5_000, 100, 120_000),
    payments: loadPaymentsConfig(env, dataDir),
  };
}

/** Payment providers: each either the real endpoint (`live`) or a simulator speaking its protocol. */
export interface PaymentsConfig {
  gatewayA: {
    /** `simulator` (default), `live`, or `off` (gateway_a not configured: payments fall back to manual confirmation). */
    mode: 'simulator' | 'live' | 'off';
    /** Live: the gateway (default chosen by `sandbox`). Simulator: a standalone simulator; unset = in-process. */
    baseUrl: string | undefined;
    clientId: string | undefined;
    clientSecret: string | undefined;
    /** Unset: webhook signatures are not checked and a warning is logged (spec 5.6). */
    webhookSecret: string | undefined;
    sandbox: boolean;
    timeoutMs: number;
    /** In-process simulator: who decides an intent (`manual` = a person or a test, via its control API). */
    simOutcome: 'manual' | 'approve' | 'decline';
    simDelayMs: number;
    simWebhookShape: 'event' | 'external';
    /** In-process simulator: where it posts webhooks; default `<publicUrl>/api/gateway-a/webhook`. */
    simWebhookUrl: string | undefined;
  };
  wallet: {
    mode: 'simulator' | 'live';
    /** Live: the gateway (default its production URL). Simulator: a standalone simulator; unset = in-process. */
    baseUrl: string | undefined;
    timeoutMs: number;
  };
  /**
   * Whether the in-process simulators' control API (`/__sim/.../__sim/...`: approve intents, list payments)
   * is served, to loopback callers only. False when NODE_ENV=production.
   */
  simulatorControl: boolean;
}

export function loadPaymentsConfig(env: NodeJS.ProcessEnv, dataDir: string): PaymentsConfig {
  const choice = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const v = env[name];
    if (v === undefined || v === '') return fallback;
    if (!(allowed as readonly string[]).includes(v)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}`);
    return v as T;
  };
  const flag = (name: string, fallback: boolean): boolean => {
    const v = env[name]?.toLowerCase();
    if (v === undefined || v === '') return fallback;
    if (['true', '1', 'yes'].includes(v)) return true;
    if (['false', '0', 'no'].includes(v)) return false;
    throw new ConfigError(`${name} must be true or false`);
  };
  const httpUrl = (name: string): string | undefined => {
    const v = env[name];
    if (!v) return undefined;
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      throw new ConfigError(`${name} must be an http(s) URL`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(`${name} must be an http(s) URL`);
    return v.replace(/\/+$/, '');
  };

  // The simulators' control API can approve payments: production must choose the providers on purpose.
  if (env.NODE_ENV === 'production') {
    for (const name of ['GATEWAY_A_MODE', 'WALLET_MODE']) {
      if (!env[name]) throw new ConfigError(`${name} must be set when NODE_ENV=production (simulators are for development)`);
    }
  }
  const mode = choice('GATEWAY_A_MODE', ['simulator', 'live', 'off'] as const, 'simulator');
  const baseUrl = httpUrl('GATEWAY_A_BASE_URL');
  const clientId = env.GATEWAY_A_CLIENT_ID || undefined;
  const clientSecret = env.GATEWAY_A_CLIENT_SECRET || undefined;
  if (mode === 'live' && (!clientId || !clientSecret)) {
    throw new ConfigError('GATEWAY_A_MODE=live needs GATEWAY_A_CLIENT_ID and GATEWAY_A_CLIENT_SECRET');
  }
  // The in-process simulator and the webhook route share one secret, kept in the data dir.
  const inProcessSimulator = mode === 'simulator' && !baseUrl;
  const webhookSecret =
    env.GATEWAY_A_WEBHOOK_SECRET || (inProcessSimulator ? keptSecret(dataDir, 'gateway-a-webhook-secret') : undefined);
  return {
    gatewayA: {
      mode,
      baseUrl,
      clientId,
      clientSecret,
      webhookSecret,
      sandbox: flag('GATEWAY_A_SANDBOX', true),
      timeoutMs: int('GATEWAY_A_TIMEOUT_MS', env.GATEWAY_A_TIMEOUT_MS, 60_000, 1_000, 120_000),
      simOutcome: choice('GATEWAY_A_SIM_OUTCOME', ['manual', 'approve', 'decline'] as const, 'manual'),
      simDelayMs: int('GATEWAY_A_SIM_DELAY_MS', env.GATEWAY_A_SIM_DELAY_MS, 3_000, 0, 600_000),
      simWebhookShape: choice('GATEWAY_A_SIM_WEBHOOK_SHAPE', ['event', 'external'] as const, 'event'),
      simWebhookUrl: httpUrl('GATEWAY_A_SIM_WEBHOOK_URL'),
    },
    wallet: {
      mode: choice('WALLET_MODE', ['simulator', 'live'] as const, 'simulator'),
      baseUrl: httpUrl('WALLET_BASE_URL'),
      timeoutMs: int('WALLET_TIMEOUT_MS', env.WALLET_TIMEOUT_MS, 60_000, 1_000, 120_000),
    },
    simulatorControl: env.NODE_ENV !== 'production',
  };
}
