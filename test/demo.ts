import { expect } from 'vitest';
import { seedFirstStart } from '../src/seed.js';
import { testConfig, type TestApp } from './app.js';
import { login } from './factories.js';

/**
 * Seeds the first start with the demo tenant on a test app, and answers the demo admin's headers and a
 * `get` that expects 200 and answers the JSON: for the tests of what the demo shows.
 */
export async function seedDemoTenant(t: TestApp) {
  const logins = await seedFirstStart(t.app.deps.tenantDb, t.app.services, testConfig({ seedDemo: true }), { DEMO_PASSWORD: 'demo-password-123' });
  const admin = logins.find((l) => l.who === 'demo admin')!;
  const headers = { authorization: `Bearer ${(await login(t.app, admin.email, admin.password!)).json().accessToken}` };
  const get = async (url: string) => {
    const res = await t.app.inject({ url, headers });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  return { headers, get, logins };
}
