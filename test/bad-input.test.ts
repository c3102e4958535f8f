import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './app.js';
import { makeSuperadmin, makeTenantWithTeam } from './factories.js';

/**
 * Every documented route, fed malformed input by every kind of caller, answers a 4xx (or a 2xx
 * when the input happens to be acceptable), never a 5xx: a client mistake is never a server error.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const BODIES: unknown[] = [
  {},
  { items: 'many', quantity: -1, price: 'free', email: 42, status: { $ne: null } },
  { items: [{ menuItem: 'x'.repeat(24), quantity: 1e9 }], table: -1, date: '2026-02-30', time: '25:99' },
  [],
  'plain string',
];
const PARAM_VALUES = ['zzz', 'f'.repeat(24), '0', "' or 1=1 --"];

describe('bad input never produces a 5xx', () => {
  it('holds for every route in /openapi.json', async () => {
    const team = await makeTenantWithTeam(t.app);
    const sa = await makeSuperadmin(t.app);
    const doc = (await t.app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
    const failures: string[] = [];
    let calls = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (path.startsWith('/__sim')) continue;
      for (const method of Object.keys(ops)) {
        for (const value of PARAM_VALUES) {
          const url = path.replace('{slug}', team.slug).replace(/\{[^}]+\}/g, encodeURIComponent(value));
          for (const headers of [{}, team.admin.headers, team.staff.headers, sa.headers, { authorization: 'Bearer garbage' }]) {
            const bodies = method === 'get' || method === 'delete' ? [undefined] : BODIES;
            for (const body of bodies) {
              const res = await t.app.inject({
                method: method.toUpperCase() as 'GET',
                url: `${url}?limit=-5&page=abc&date=yesterday&status=%00`,
                headers,
                ...(body === undefined ? {} : { payload: JSON.stringify(body), headers: { ...headers, 'content-type': 'application/json' } }),
              });
              calls++;
              if (res.statusCode >= 500) failures.push(`${method.toUpperCase()} ${url} ${JSON.stringify(body)} -> ${res.statusCode} ${res.body.slice(0, 200)}`);
            }
          }
        }
      }
    }
    expect(calls).toBeGreaterThan(500);
    expect(failures).toEqual([]);
  }, 300_000);
});
