import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installApp, makePublishedApp } from './apps.js';
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
    // Premium: every plan feature, so the feature-gated routes reach their validation too.
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    const sa = await makeSuperadmin(t.app);
    const scopes = ['orders.read', 'menu.read', 'reservations.read', 'reservations.write'] as const;
    const installed = await installApp(t.app, team, (await makePublishedApp(t.app, sa, { scopes: [...scopes] })).slug, [...scopes]);
    const doc = (await t.app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
    const failures: string[] = [];
    let calls = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (path.startsWith('/__sim')) continue;
      for (const method of Object.keys(ops)) {
        for (const value of PARAM_VALUES) {
          const url = path.replace('{slug}', team.slug).replace(/\{[^}]+\}/g, encodeURIComponent(value));
          for (const headers of [{}, team.admin.headers, team.staff.headers, sa.headers, installed.headers, { authorization: 'Bearer garbage' }]) {
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

// ---- NUL characters, lone surrogates, far dates and unknown fields, from each route's own schema

interface Schema {
  type?: string;
  format?: string;
  pattern?: string;
  enum?: string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
}
interface Operation {
  parameters?: { in: string; name: string; required?: boolean; schema: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

const NUL = 'x\u0000y';
const SURROGATE = 'x\ud800y';
const FAR_DATES = ['0001-01-01', '9999-12-31', '2026-02-30'];
const isDate = (s: Schema) => s.format === 'date' || s.format === 'date-time';

/** A value for the schema: every string is `text`, every date-format string `date` (default: `text`). */
function sample(s: Schema | undefined, text: string, date = text, depth = 0): unknown {
  if (!s || depth > 6) return text;
  const branch = (s.anyOf ?? s.oneOf)?.find((b) => b.type !== 'null');
  if (branch) return sample(branch, text, date, depth);
  switch (s.type) {
    case 'object':
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, sample(v, text, date, depth + 1)]));
    case 'array':
      return [sample(s.items, text, date, depth + 1)];
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    default:
      return isDate(s) ? date : text;
  }
}

/** Every required field present (null: the unknown field is reported before any value is checked). */
function requiredOnly(s: Schema): Record<string, unknown> {
  const shape = s.type === 'object' ? s : (s.anyOf ?? s.oneOf ?? []).find((b) => b.type === 'object');
  return Object.fromEntries((shape?.required ?? []).map((k) => [k, null]));
}

describe('NUL, lone surrogates, far dates and unknown fields never produce a 5xx', () => {
  it('holds for every route in /openapi.json, and a caller past the guards gets a 400 naming the field', async () => {
    // Premium: every plan feature, so the feature-gated routes reach their validation too.
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    const sa = await makeSuperadmin(t.app);
    const scopes = ['orders.read', 'menu.read', 'reservations.read', 'reservations.write'] as const;
    const installed = await installApp(t.app, team, (await makePublishedApp(t.app, sa, { scopes: [...scopes] })).slug, [...scopes]);
    const doc = (await t.app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, Record<string, Operation>> };
    const failures: string[] = [];
    const unnamed: string[] = [];
    let calls = 0;
    let named = 0;
    let address = 0;
    // A fresh client address per call: per-address rate limits must not answer before validation.
    const send = async (method: string, url: string, headers: Record<string, string>, body?: unknown, raw?: string) => {
      address++;
      const res = await t.app.inject({
        method: method.toUpperCase() as 'GET',
        url,
        remoteAddress: `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`,
        headers: body === undefined && raw === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        ...(raw !== undefined ? { payload: raw } : body === undefined ? {} : { payload: JSON.stringify(body) }),
      });
      calls++;
      if (res.statusCode >= 500) failures.push(`${method.toUpperCase()} ${url} ${raw ?? JSON.stringify(body)} -> ${res.statusCode} ${res.body.slice(0, 200)}`);
      return res;
    };
    const expectNamed = (res: Awaited<ReturnType<typeof send>>, field: string, what: string) => {
      named++;
      const details = res.statusCode === 400 ? (res.json().details as { field: string }[] | undefined) : undefined;
      if (!details?.some((d) => d.field === field)) unnamed.push(`${what}: expected 400 naming ${field}, got ${res.statusCode} ${res.body.slice(0, 200)}`);
    };

    for (const [path, ops] of Object.entries(doc.paths)) {
      if (path.startsWith('/__sim')) continue;
      for (const [method, op] of Object.entries(ops)) {
        const query = (op.parameters ?? []).filter((p) => p.in === 'query');
        const bodySchema = op.requestBody?.content?.['application/json']?.schema;
        const hasBody = method !== 'get' && method !== 'delete';
        const at = (value: string) => path.replace('{slug}', team.slug).replace(/\{[^}]+\}/g, value);
        // A param that passes its pattern ('f' x 24 is an id), a NUL, a lone surrogate (as UTF-8 bytes it is not text).
        for (const param of ['f'.repeat(24), '%00', 'a%ED%A0%80']) {
          const url = at(param);
          const valid = param === 'f'.repeat(24);
          // The public API's caller past its guard is an App installation with every scope.
          const insider = path.startsWith('/public/') ? installed.headers : sa.headers;
          for (const headers of [{}, team.admin.headers, team.staff.headers, insider, { authorization: 'Bearer garbage' }] as Record<string, string>[]) {
            const past = valid && headers === insider;
            // Query strings: every parameter NUL, a lone surrogate, or a far date where it is a date.
            for (const text of ['%00', 'x%ED%A0%80', 'x%ED%B0%80']) {
              if (!query.length) break;
              const q = query.map((p) => `${p.name}=${text}`).join('&');
              const res = await send(method, `${url}?${q}`, headers, hasBody ? {} : undefined);
              if (past && text === '%00' && !path.includes('{number}') && !path.includes('{token}')) expectNamed(res, `querystring.${query[0].name}`, `${method} ${path} ?${q}`);
            }
            for (const p of query.filter((p) => isDate(p.schema))) {
              // The other required parameters (`to` with `from`, an account id) get a valid value, so the far date is the only fault.
              const ID = 'f'.repeat(24);
              const validFor = (o: { schema: Schema }) =>
                isDate(o.schema) ? '2026-01-15' : o.schema.enum?.length ? o.schema.enum[0] : o.schema.pattern && new RegExp(o.schema.pattern).test(ID) ? ID : null;
              const rest = query
                .filter((o) => o !== p && o.required && validFor(o))
                .map((o) => `&${o.name}=${validFor(o)}`)
                .join('');
              for (const far of FAR_DATES) {
                const res = await send(method, `${url}?${p.name}=${far}${rest}`, headers, hasBody ? {} : undefined);
                if (past && !path.includes('{number}') && !path.includes('{token}')) expectNamed(res, `querystring.${p.name}`, `${method} ${path} ?${p.name}=${far}`);
              }
            }
            if (!hasBody) {
              await send(method, `${url}?cacheBuster=%00`, headers);
              continue;
            }
            // Bodies: NUL and lone surrogates in every string (nested ones too), far dates, a NUL key, an unknown field.
            const bodies: [string, unknown][] = [
              ['nul', sample(bodySchema, NUL)],
              ['surrogate', sample(bodySchema, SURROGATE)],
              ...FAR_DATES.map((d): [string, unknown] => [`date ${d}`, sample(bodySchema, 'text', d)]),
              ['nul key', { 'a\u0000b': 1 }],
              ['unknown', { ...(bodySchema ? requiredOnly(bodySchema) : {}), zzUnknownField: 1 }],
            ];
            for (const [kind, body] of bodies) {
              const res = await send(method, url, headers, body);
              if (!past || !bodySchema) continue;
              if (kind === 'unknown') expectNamed(res, 'body.zzUnknownField', `${method} ${path} unknown field`);
              if (kind === 'nul key') expectNamed(res, 'body.a\\u0000b', `${method} ${path} NUL key`);
              if (kind === 'nul' || kind === 'surrogate') named++;
              if ((kind === 'nul' || kind === 'surrogate') && !(res.statusCode === 400 && /^body\./.test(res.json().details?.[0]?.field ?? ''))) {
                unnamed.push(`${method} ${path} ${kind}: expected 400 naming a body field, got ${res.statusCode} ${res.body.slice(0, 200)}`);
              }
            }
            // The same lone surrogate as raw JSON text (an escape JSON.stringify would also produce).
            await send(method, url, headers, undefined, '{"name":"\\udc00","notes":"\\ud800x"}');
          }
        }
      }
    }
    expect(calls).toBeGreaterThan(1000);
    expect(named).toBeGreaterThan(100);
    expect(failures).toEqual([]);
    expect(unnamed).toEqual([]);
  }, 300_000);
});
