import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

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
}

export class ConfigError extends Error {}

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
  };
}
