import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

const dir = mkdtempSync(join(tmpdir(), 'ro-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = (extra: Record<string, string>) => ({ DATA_DIR: dir, ...extra });

describe('loadConfig', () => {
  it('runs with no environment: generated secrets kept in the data dir, simulators on', () => {
    const a = loadConfig(env({}));
    const b = loadConfig(env({}));
    expect(a.jwtSecret).toBe(b.jwtSecret);
    expect(a.encryptionKey.equals(b.encryptionKey)).toBe(true);
    expect(a.port).toBe(3000);
    expect(a.integrations?.gatewayA.mode).toBe('simulator');
  });

  it('refuses bad values with a message naming the variable', () => {
    expect(() => loadConfig(env({ PORT: 'abc' }))).toThrow(/PORT/);
    expect(() => loadConfig(env({ ENCRYPTION_KEY: 'short' }))).toThrow(/ENCRYPTION_KEY/);
    expect(() => loadConfig(env({ JWT_SECRET: 'short' }))).toThrow(/JWT_SECRET/);
    expect(() => loadConfig(env({ BCRYPT_COST: '99' }))).toThrow(/BCRYPT_COST/);
    expect(() => loadConfig(env({ TRUST_PROXY: 'yes please' }))).toThrow(/TRUST_PROXY/);
    expect(loadConfig(env({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' })).trustProxy).toBe('10.0.0.0/8, 127.0.0.1');
    expect(loadConfig(env({ TRUST_PROXY: '1' })).trustProxy).toBe(1);
  });

  it('makes production choose its payment providers (no simulators by default)', () => {
    expect(() => loadConfig(env({ NODE_ENV: 'production' }))).toThrow(ConfigError);
    expect(() => loadConfig(env({ NODE_ENV: 'production', GATEWAY_A_MODE: 'off' }))).toThrow(/WALLET_MODE/);
    expect(() => loadConfig(env({ NODE_ENV: 'production', GATEWAY_A_MODE: 'off', WALLET_MODE: 'simulator' }))).toThrow(/PIX_PSP_MODE/);
    expect(() => loadConfig(env({ NODE_ENV: 'production', GATEWAY_A_MODE: 'off', WALLET_MODE: 'simulator', PIX_PSP_MODE: 'off' }))).toThrow(/PROVIDER_A_MODE/);
    const delivery = { PROVIDER_A_MODE: 'off', PROVIDER_B_MODE: 'off', PROVIDER_C_MODE: 'off' };
    const ok = loadConfig(env({ NODE_ENV: 'production', GATEWAY_A_MODE: 'off', WALLET_MODE: 'simulator', PIX_PSP_MODE: 'off', ...delivery }));
    expect(ok.integrations?.gatewayA.mode).toBe('off');
  });
});
