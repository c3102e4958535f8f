import { randomBytes } from 'node:crypto';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './app.js';
import { installApp, makePublishedApp } from './apps.js';
import { makeMenuItem, makePdv, makeReservation, makeSuperadmin, makeTable, makeTenantWithTeam } from './factories.js';
import { Rng } from './rng.js';

/**
 * Fuzzing from /openapi.json (issue 20): at least 10,000 requests across every documented route, built from
 * each route's own parameter and body schemas and then broken (wrong types, boundary numbers, huge, empty and
 * exotic strings, NUL, missing and extra fields, wrong content types, invalid JSON). No answer may be a 5xx,
 * and every answer must match the schema the document declares for its status; an answer whose status the
 * document does not declare is a failure too. Seeded: the seed is printed, `FUZZ_SEED=<n>` replays a run.
 */

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : randomBytes(4).readUInt32LE(0);
const CONCURRENCY = 20;

type Schema = {
  $ref?: string;
  type?: string;
  nullable?: boolean;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number | boolean;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};
interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  schema: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
  security?: unknown[];
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

/** Values that break things: wrong types, boundary numbers, huge, empty and exotic strings. */
const RAW_1E309 = '\u0001RAW_1E309\u0001';
const HOSTILE: unknown[] = [
  0,
  -1,
  2 ** 31,
  2 ** 53,
  -(2 ** 53),
  1.5,
  'NaN',
  RAW_1E309,
  'x'.repeat(100_000),
  '',
  ' ',
  '😀🍕👨‍👩‍👧',
  '\u202Emalicious\u202C',
  'مطعم',
  'e\u0301\u0301\u0301',
  'a\u0000b',
  '\u0000',
  '\ud800',
  true,
  null,
  [],
  {},
  [1, 'a', null],
  { $ne: null },
  "' or 1=1 --",
  '../../etc/passwd',
  '2026-02-30',
  '9999-12-31T23:59:59Z',
  '1e309',
];
const HOSTILE_TEXT = ['0', '-1', '2147483648', '9007199254740993', 'NaN', '1e309', '', 'x'.repeat(100_000), '😀', '\u202Eabc', 'e\u0301', '\u0000', 'a\u0000b', 'true', 'null', '[]', '%', "' or 1=1 --", '-0', '1.5'];

function resolve(doc: Doc, s: Schema): Schema {
  let out = s;
  while (out?.$ref) out = doc.components.schemas[out.$ref.replace('#/components/schemas/', '')];
  return out ?? {};
}

/** A value the schema accepts, as far as a generator can tell (patterns: ids, numbers and dates known here). */
function valid(doc: Doc, rng: Rng, input: Schema, ids: string[], depth = 0): unknown {
  const s = resolve(doc, input);
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return rng.pick(s.enum);
  if (s.anyOf?.length) return valid(doc, rng, rng.pick(s.anyOf), ids, depth);
  if (s.oneOf?.length) return valid(doc, rng, rng.pick(s.oneOf), ids, depth);
  if (s.allOf?.length) return Object.assign({}, ...s.allOf.map((x) => valid(doc, rng, x, ids, depth) as object));
  if (s.nullable && rng.chance(0.1)) return null;
  switch (s.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, prop] of Object.entries(s.properties ?? {})) {
        if ((s.required ?? []).includes(key) || (depth < 3 && rng.chance(0.5))) out[key] = valid(doc, rng, prop, ids, depth + 1);
      }
      return out;
    }
    case 'array': {
      const n = Math.max(s.minItems ?? 0, depth < 3 ? rng.int(0, Math.min(3, s.maxItems ?? 3)) : 0);
      return Array.from({ length: n }, () => valid(doc, rng, s.items ?? {}, ids, depth + 1));
    }
    case 'integer':
    case 'number': {
      const lo = s.minimum ?? (typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : 0);
      const hi = s.maximum ?? lo + 1000;
      const n = rng.int(Math.ceil(lo), Math.floor(Math.max(lo, Math.min(hi, lo + 1000))));
      return s.type === 'number' && rng.chance(0.3) ? n + 0.25 : n;
    }
    case 'boolean':
      return rng.chance(0.5);
    case 'string':
      return validString(rng, s, ids);
    default:
      return rng.pick(['x', 1, true]);
  }
}

function validString(rng: Rng, s: Schema, ids: string[]): string {
  if (s.format === 'date') return `2026-0${rng.int(1, 9)}-1${rng.int(0, 9)}`;
  if (s.format === 'date-time') return `2026-0${rng.int(1, 9)}-1${rng.int(0, 9)}T12:00:00Z`;
  if (s.format === 'email') return `fuzz${rng.int(0, 1e6)}@example.com`;
  if (s.format === 'uri') return 'https://example.com/hook';
  if (s.format === 'uuid') return '123e4567-e89b-42d3-a456-426614174000';
  if (s.pattern === '^[0-9a-f]{24}$') return rng.chance(0.6) && ids.length ? rng.pick(ids) : hex(rng, 24);
  const fixedHex = /^\^\[0-9a-f\]\{(\d+)\}\$$/.exec(s.pattern ?? '');
  if (fixedHex) return hex(rng, Number(fixedHex[1]));
  if (s.pattern?.startsWith('^[0-9]{8,14}')) return '7891234567895';
  if (s.pattern?.includes('[0-9]{2}:[0-9]{2}') || s.pattern?.includes('[01]')) return '20:00';
  const min = s.minLength ?? 1;
  const max = Math.max(min, Math.min(s.maxLength ?? 20, 20));
  const base = rng.pick(['Picanha', 'Mesa', 'abc-1', 'Maria Souza', 'fuzz']);
  return (base + 'x'.repeat(max)).slice(0, rng.int(Math.min(min, max), max)).padEnd(min, 'x');
}

const hex = (rng: Rng, n: number) => Array.from({ length: n }, () => '0123456789abcdef'[rng.int(0, 15)]).join('');

/** Breaks one place of a value: a leaf replaced, a field removed, an unknown field added, or the whole of it. */
function mutate(rng: Rng, value: unknown, depth = 0): unknown {
  if (value && typeof value === 'object' && depth < 4 && rng.chance(0.8)) {
    if (Array.isArray(value)) {
      if (!value.length || rng.chance(0.2)) return [...value, rng.pick(HOSTILE)];
      const i = rng.int(0, value.length - 1);
      return value.map((v, j) => (j === i ? mutate(rng, v, depth + 1) : v));
    }
    const keys = Object.keys(value);
    const op = rng.weighted({ leaf: keys.length ? 6 : 0, drop: keys.length ? 2 : 0, extra: 2 });
    const copy = { ...(value as Record<string, unknown>) };
    if (op === 'extra') copy[rng.pick(['extra', '__proto__x', 'tenantId', 'isSuperadmin', 'a\u0000b', '😀'])] = rng.pick(HOSTILE);
    else if (op === 'drop') delete copy[rng.pick(keys)];
    else {
      const k = rng.pick(keys);
      copy[k] = mutate(rng, copy[k], depth + 1);
    }
    return copy;
  }
  return rng.pick(HOSTILE);
}

/** JSON text of a body, with the literal 1e309 where the sentinel stood (JSON.stringify cannot write it). */
const toJson = (v: unknown) => (JSON.stringify(v) ?? 'null').replaceAll(JSON.stringify(RAW_1E309), '1e309');

interface FuzzRequest {
  n: number;
  method: string;
  path: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  kind: string;
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

describe('fuzzing from /openapi.json', () => {
  it(`${REQUESTS} generated requests: no 5xx, and every answer matches its declared schema`, { timeout: 300_000 }, async () => {
    console.log(`fuzz seed ${SEED} (replay: FUZZ_SEED=${SEED} npx vitest run test/fuzz-openapi.test.ts)`);
    const { app } = t;
    // Premium: every plan feature, so the feature-gated routes reach their validation too.
    const team = await makeTenantWithTeam(app, { plan: 'premium' });
    const superadmin = await makeSuperadmin(app);
    const scopes = ['orders.read', 'menu.read', 'reservations.read', 'reservations.write'] as const;
    const installed = await installApp(app, team, (await makePublishedApp(app, superadmin, { scopes: [...scopes] })).slug, [...scopes]);
    // Real records, so some generated ids reach past the 404 into the handlers.
    const item = await makeMenuItem(app, team.tenant);
    const table = await makeTable(app, team.tenant);
    const reservation = await makeReservation(app, team.tenant);
    const pdv = await makePdv(app, team.tenant);
    const ids = [item._id, item.category, table._id, reservation._id, pdv.branchId, pdv.pdvId];

    const doc = (await app.inject({ url: '/openapi.json' })).json() as Doc;
    const ajv = new Ajv.default({ strict: false, allErrors: false, validateFormats: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'openapi', components: doc.components });
    const validators = new Map<string, ValidateFunction>();
    const validatorOf = (schema: Schema) => {
      const key = JSON.stringify(schema);
      let v = validators.get(key);
      if (!v) {
        v = ajv.compile({ $id: `r${validators.size}`, ...rewriteRefs(schema) });
        validators.set(key, v);
      }
      return v;
    };

    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));
    expect(operations.length).toBeGreaterThan(150);
    const rng = new Rng(SEED);

    const build = (n: number): FuzzRequest => {
      const { path, method, op } = rng.pick(operations);
      const params = op.parameters ?? [];
      const kinds: string[] = [];
      let url = path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
        if (name === 'slug') return team.slug;
        const p = params.find((x) => x.in === 'path' && x.name === name);
        if (rng.chance(0.15)) {
          kinds.push(`param ${name}`);
          return encodeURIComponent(String(rng.pick(HOSTILE_TEXT)).slice(0, 2000));
        }
        return encodeURIComponent(String(valid(doc, rng, p?.schema ?? { type: 'string' }, ids)));
      });
      const query = new URLSearchParams();
      for (const p of params.filter((x) => x.in === 'query')) {
        if (!p.required && rng.chance(0.5)) continue;
        if (rng.chance(0.25)) {
          kinds.push(`query ${p.name}`);
          query.append(p.name, rng.pick(HOSTILE_TEXT));
          if (rng.chance(0.2)) query.append(p.name, rng.pick(HOSTILE_TEXT)); // repeated: an array
        } else {
          const v = valid(doc, rng, p.schema, ids);
          for (const x of Array.isArray(v) ? v : [v]) query.append(p.name, String(x));
        }
      }
      if (rng.chance(0.05)) {
        kinds.push('query extra');
        query.append(rng.pick(['extra', 'limit', 'page', '__proto__']), rng.pick(HOSTILE_TEXT));
      }
      if ([...query.keys()].length) url += `?${query.toString()}`;

      const who = rng.weighted({ admin: 85, none: 10, other: 5 });
      const apiRoute = path.startsWith('/public/v1');
      const operator = path.startsWith('/api/superadmin');
      const auth: Record<string, string> =
        who === 'none' ? {} : apiRoute ? installed.headers : operator ? superadmin.headers : who === 'other' ? team.staff.headers : team.admin.headers;
      const headers: Record<string, string> = { ...auth };
      let payload: string | undefined;
      const jsonBody = op.requestBody?.content['application/json']?.schema;
      if (jsonBody || (method !== 'get' && rng.chance(0.05))) {
        const good = jsonBody ? valid(doc, rng, jsonBody, ids) : {};
        const shape = rng.weighted({ mutated: 55, valid: 15, missingRequired: 8, wrongType: 5, textPlain: 4, form: 4, invalidJson: 5, empty: 4 });
        kinds.push(`body ${shape}`);
        headers['content-type'] = 'application/json';
        if (shape === 'valid') payload = toJson(good);
        else if (shape === 'mutated') payload = toJson(mutate(rng, good));
        else if (shape === 'missingRequired') {
          const req = resolve(doc, jsonBody ?? {}).required ?? [];
          const copy = { ...(good as Record<string, unknown>) };
          if (req.length) delete copy[rng.pick(req)];
          payload = toJson(copy);
        } else if (shape === 'wrongType') payload = toJson(rng.pick([[], 'text', 42, null, true, [good]]));
        else if (shape === 'textPlain') {
          headers['content-type'] = 'text/plain';
          payload = toJson(good);
        } else if (shape === 'form') {
          headers['content-type'] = 'application/x-www-form-urlencoded';
          payload = new URLSearchParams({ a: 'b', name: rng.pick(HOSTILE_TEXT) }).toString();
        } else if (shape === 'invalidJson') payload = rng.pick(['{', '{"a":', '[1,]', '{"a":1}}', '\u0000', '{"a":"\\u0000"', 'nul', toJson(good).slice(0, -1)]);
        else payload = '';
      }
      return { n, method: method.toUpperCase(), path, url, headers, payload, kind: kinds.join(', ') || 'valid-ish' };
    };
    const requests = Array.from({ length: REQUESTS }, (_, n) => build(n));

    const serverErrors: string[] = [];
    const undeclared = new Map<string, string>();
    const mismatched = new Map<string, string>();
    const statuses = new Map<number, number>();
    const describeReq = (r: FuzzRequest) =>
      `#${r.n} ${r.method} ${r.url.slice(0, 200)} [${r.kind}] ${r.payload === undefined ? '' : `${r.headers['content-type']} ${r.payload.slice(0, 200)}`}`;

    const check = (r: FuzzRequest, res: LightMyRequestResponse) => {
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      if (res.statusCode >= 500) serverErrors.push(`${describeReq(r)} -> ${res.statusCode} ${res.body.slice(0, 300)}`);
      const op = doc.paths[r.path][r.method.toLowerCase()];
      const declared = op.responses[String(res.statusCode)] ?? op.responses[`${String(res.statusCode)[0]}XX`] ?? op.responses.default;
      const routeKey = `${r.method} ${r.path} ${res.statusCode}`;
      if (!declared) {
        if (!undeclared.has(routeKey)) undeclared.set(routeKey, `${describeReq(r)} -> ${res.body.slice(0, 200)}`);
        return;
      }
      const type = String(res.headers['content-type'] ?? '').split(';')[0];
      const schema = declared.content?.['application/json']?.schema;
      if (type !== 'application/json') return; // files, pages and empty answers: their types are declared, not their bytes
      if (!schema) {
        if (!mismatched.has(routeKey)) mismatched.set(routeKey, `a JSON body where none is declared: ${describeReq(r)}`);
        return;
      }
      const validate = validatorOf(schema);
      if (!validate(res.json())) {
        if (!mismatched.has(routeKey)) mismatched.set(routeKey, `${ajv.errorsText(validate.errors)}: ${describeReq(r)} -> ${res.body.slice(0, 300)}`);
      }
    };

    for (let i = 0; i < requests.length; i += CONCURRENCY) {
      await Promise.all(
        requests.slice(i, i + CONCURRENCY).map(async (r) => {
          const res = await app.inject({ method: r.method as 'GET', url: r.url, headers: r.headers, ...(r.payload === undefined ? {} : { payload: r.payload }) });
          check(r, res);
        }),
      );
    }

    console.log(`fuzz seed ${SEED}: ${requests.length} requests over ${new Set(requests.map((r) => `${r.method} ${r.path}`)).size} routes; statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    // The run reached past validation and the guards: some answers are successes.
    expect([...statuses.keys()].some((s) => s >= 200 && s < 300)).toBe(true);
    expect(new Set(requests.map((r) => `${r.method} ${r.path}`)).size).toBeGreaterThan(operations.length * 0.9);
    const seed = `seed ${SEED}`;
    expect.soft(serverErrors, `5xx answers (${seed})`).toEqual([]);
    // Grouped by status: one line per status with the routes it came from, and the first request that got it.
    const byStatus = new Map<string, { routes: string[]; example: string }>();
    for (const [key, example] of undeclared) {
      const status = key.slice(key.lastIndexOf(' ') + 1);
      const group = byStatus.get(status) ?? { routes: [], example };
      group.routes.push(key.slice(0, key.lastIndexOf(' ')));
      byStatus.set(status, group);
    }
    const undeclaredLines = [...byStatus].map(([status, g]) => `${status} on ${g.routes.length} route(s): ${g.routes.join('; ')}. First: ${g.example}`);
    expect.soft(undeclaredLines, `answers with a status the document does not declare (${seed})`).toEqual([]);
    expect([...mismatched].map(([k, v]) => `${k}: ${v}`), `answers that do not match their declared schema (${seed})`).toEqual([]);
  });
});

/** A response schema with its component `$ref`s pointed at the document registered as `openapi`. */
function rewriteRefs(schema: Schema): Schema {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"openapi#/components/schemas/')) as Schema;
}
