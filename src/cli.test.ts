import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { sha256 } from './platform/crypto.js';
import { installApp, makePublishedApp } from '../test/apps.js';
import { createTestApp, type TestApp } from '../test/app.js';
import { makeMenuItem, makeSuperadmin, makeTenantWithTeam, makeUser, type TestUser } from '../test/factories.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, runCli } from './cli.js';

let t: TestApp;
let sa: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  sa = await makeSuperadmin(t.app);
});
afterAll(() => t.close());

/** Runs one command line against the test app: its exit code, what it printed, and what it printed as errors. */
async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { app: t.app, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err, text: out.join('\n'), errors: err.join('\n') };
}

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const items = (headers: Record<string, string>) => get('/public/v1/menu/items', headers);
const names = (res: { json(): unknown }) => (res.json() as { name: string }[]).map((i) => i.name).sort();

/** Mints a key through the CLI: the key (last line) and its id. */
async function mintKey(email: string, label?: string) {
  const res = await cli('api-keys:create', '--email', email, ...(label ? ['--label', label] : []));
  expect(res.code, res.errors).toBe(EXIT_OK);
  const key = res.out.at(-1)!;
  const id = /id ([0-9a-f]{24})/.exec(res.text)?.[1];
  expect(id).toBeDefined();
  return { key, id: id!, res };
}

describe('cli: help and usage', () => {
  it('lists the commands and exits 0', async () => {
    for (const argv of [['help'], []]) {
      const res = await cli(...argv);
      expect(res.code).toBe(EXIT_OK);
      for (const c of ['apps:deprecate', 'api-keys:create', 'api-keys:list', 'api-keys:revoke', 'installations:signing-secret', 'help']) {
        expect(res.text).toContain(c);
      }
    }
  });

  it('answers usage and exit code 2 to an unknown command, option or a missing argument', async () => {
    const unknown = await cli('apps:delete', 'x');
    expect(unknown.code).toBe(EXIT_USAGE);
    expect(unknown.errors).toContain('Unknown command: apps:delete');
    expect(unknown.errors).toContain('api-keys:create --email <email>');
    for (const argv of [
      ['api-keys:create'],
      ['api-keys:create', '--email'],
      ['api-keys:create', '--email', 'a@example.com', '--role', 'admin'],
      ['api-keys:list'],
      ['api-keys:revoke'],
      ['apps:deprecate'],
      ['apps:deprecate', 'a', 'b'],
      ['installations:signing-secret'],
    ]) {
      const res = await cli(...argv);
      expect(res.code, argv.join(' ')).toBe(EXIT_USAGE);
      expect(res.errors, argv.join(' ')).toContain('Usage:');
    }
  });
});

describe('cli: apps:deprecate (the kill-switch, spec section 3)', () => {
  it('deprecates the App and revokes every active installation in every tenant at once', async () => {
    const a = await makePublishedApp(t.app, sa, { scopes: ['menu.read', 'orders.read'] });
    const other = await makePublishedApp(t.app, sa, { scopes: ['menu.read'] });
    const one = await makeTenantWithTeam(t.app);
    const two = await makeTenantWithTeam(t.app);
    await makeMenuItem(t.app, one.tenant, { name: 'Coxinha' });
    const first = await installApp(t.app, one, a.slug, ['menu.read']);
    const second = await installApp(t.app, two, a.slug, ['menu.read', 'orders.read']);
    const untouched = await installApp(t.app, one, other.slug, ['menu.read']);
    for (const h of [first.headers, second.headers, untouched.headers]) expect((await items(h)).statusCode).toBe(200);
    expect((await get(`/t/${one.slug}/admin/marketplace/apps/${a.slug}`, one.admin.headers)).statusCode).toBe(200);

    const res = await cli('apps:deprecate', a.slug);
    expect(res.code, res.errors).toBe(EXIT_OK);
    expect(res.text).toContain(`App ${a.slug} is deprecated`);
    expect(res.text).toContain('2 active installation(s) revoked');

    for (const h of [first.headers, second.headers]) {
      const refused = await items(h);
      expect(refused.statusCode).toBe(401);
    }
    // Another App's installation keeps working.
    expect(names(await items(untouched.headers))).toEqual(['Coxinha']);
    expect((await get(`/t/${one.slug}/admin/marketplace/apps/${a.slug}`, one.admin.headers)).statusCode).toBe(404);
    const listed = await get(`/t/${two.slug}/admin/marketplace/apps`, two.admin.headers);
    expect(listed.json().map((x: { slug: string }) => x.slug)).not.toContain(a.slug);
    const install = await t.app.inject({
      method: 'POST',
      url: `/t/${two.slug}/admin/marketplace/apps/${a.slug}/install`,
      headers: two.admin.headers,
      payload: { scopes: ['menu.read'] },
    });
    expect(install.statusCode).toBe(400);
    // The tenant sees the installation gone from its active list; the operator sees none left.
    const active = await get(`/t/${one.slug}/admin/marketplace/installations`, one.admin.headers);
    expect(active.json().map((i: { _id: string }) => i._id)).toEqual([untouched.installation._id]);
    const op = await get(`/api/superadmin/apps/${a.id}`, sa.headers);
    expect(op.json()).toMatchObject({ status: 'deprecated', activeInstallations: 0, deprecatedAt: expect.any(String) });

    // A repeat revokes nothing more; an unknown App is an error (exit 1).
    const again = await cli('apps:deprecate', a.slug);
    expect(again.code).toBe(EXIT_OK);
    expect(again.text).toContain('0 active installation(s) revoked');
    const unknown = await cli('apps:deprecate', 'no-such-app');
    expect(unknown.code).toBe(EXIT_FAILED);
    expect(unknown.errors).toContain('App not found');
  });
});

describe('cli: installations:signing-secret', () => {
  it('prints an installation\'s signing secret (whsec_ and 32 bytes in base64); an unknown installation is exit code 1', async () => {
    const a = await makePublishedApp(t.app, sa, { scopes: ['menu.read', 'webhooks.subscribe'] });
    const team = await makeTenantWithTeam(t.app);
    const { installation } = await installApp(t.app, team, a.slug, ['menu.read', 'webhooks.subscribe']);
    const res = await cli('installations:signing-secret', installation._id);
    expect(res.code, res.errors).toBe(EXIT_OK);
    expect(res.out).toHaveLength(1);
    expect(res.out[0]).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(res.out[0].slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect((await cli('installations:signing-secret', installation._id)).out).toEqual(res.out);
    for (const id of ['0'.repeat(24), 'nope']) {
      const unknown = await cli('installations:signing-secret', id);
      expect(unknown.code, id).toBe(EXIT_FAILED);
      expect(unknown.errors).toContain('Installation not found');
    }
  });
});

describe('cli: legacy API keys (spec section 5)', () => {
  it('mints a 64-hex key that reads the user\'s tenant with x-api-key, with the deprecation header', async () => {
    const team = await makeTenantWithTeam(t.app);
    await makeMenuItem(t.app, team.tenant, { name: 'Pastel' });
    const { key, id, res } = await mintKey(team.admin.email, 'POS bridge');
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(res.text).toContain(`API key for ${team.admin.email}`);
    expect(res.text).toContain('shown only this once');

    const ok = await items({ 'x-api-key': key });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(names(ok)).toEqual(['Pastel']);
    expect(ok.headers.deprecation).toBe('true');
    expect(ok.headers.link).toContain('rel="successor-version"');
    // Stored as its SHA-256 only.
    const raw = await t.app.deps.db.execute(sql`select * from api_keys where id = ${id}`);
    const stored = raw as unknown as { rows: Record<string, unknown>[] };
    expect(stored.rows).toEqual([expect.objectContaining({ key_hash: sha256(key), label: 'POS bridge' })]);
    expect(JSON.stringify(stored.rows)).not.toContain(key);

    // The listing shows the key's record, 30 days, never the key.
    const list = await cli('api-keys:list', '--email', team.admin.email);
    expect(list.code).toBe(EXIT_OK);
    expect(list.out).toHaveLength(1);
    expect(list.text).toContain(id);
    expect(list.text).toContain('active');
    expect(list.text).toContain('POS bridge');
    expect(list.text).not.toContain(key);
    const created = new Date(/created (\S+)/.exec(list.text)![1]).getTime();
    const expires = new Date(/expires (\S+)/.exec(list.text)![1]).getTime();
    expect(expires - created).toBe(30 * 86_400_000);
  });

  it('answers exit code 1 with a clear message for an unknown email, and mints nothing', async () => {
    const res = await cli('api-keys:create', '--email', 'nobody-here@example.com');
    expect(res.code).toBe(EXIT_FAILED);
    expect(res.errors).toContain('No user with email nobody-here@example.com');
    expect(res.out).toEqual([]);
    expect((await cli('api-keys:list', '--email', 'nobody-here@example.com')).code).toBe(EXIT_FAILED);
    const team = await makeTenantWithTeam(t.app);
    const long = await cli('api-keys:create', '--email', team.admin.email, `--label=${'x'.repeat(201)}`);
    expect(long.code).toBe(EXIT_FAILED);
    expect(long.errors).toContain('label: must be at most 200 characters');
    expect((await cli('api-keys:list', '--email', team.admin.email)).text).toBe(`No API keys for ${team.admin.email}.`);
  });

  it('refuses a revoked key at once with 401; a repeated revoke keeps the first date', async () => {
    const team = await makeTenantWithTeam(t.app);
    const { key, id } = await mintKey(team.admin.email);
    expect((await items({ 'x-api-key': key })).statusCode).toBe(200);
    const revoked = await cli('api-keys:revoke', id);
    expect(revoked.code, revoked.errors).toBe(EXIT_OK);
    expect(revoked.text).toContain(`API key ${id} of ${team.admin.email} is revoked`);
    expect((await items({ 'x-api-key': key })).statusCode).toBe(401);
    const since = /since (\S+)\)/.exec(revoked.text)![1];
    t.clock.advance(60_000);
    const again = await cli('api-keys:revoke', id);
    expect(again.code).toBe(EXIT_OK);
    expect(again.text).toContain(`since ${since}`);
    expect((await cli('api-keys:list', '--email', team.admin.email)).text).toContain('revoked');
    for (const bad of ['0'.repeat(24), 'not-an-id']) {
      const res = await cli('api-keys:revoke', bad);
      expect(res.code, bad).toBe(EXIT_FAILED);
      expect(res.errors).toContain('not found');
    }
  });

  it('binds a key of a user of two tenants to x-tenant-id: missing 400, not theirs 401, theirs 200', async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    const stranger = await makeTenantWithTeam(t.app);
    await makeMenuItem(t.app, a.tenant, { name: 'Item A' });
    await makeMenuItem(t.app, b.tenant, { name: 'Item B' });
    await makeMenuItem(t.app, stranger.tenant, { name: 'Item C' });
    const both = await makeUser(t.app, a.tenant, 'admin');
    await t.app.services.users.addMember(t.app.deps.tenantDb(b.tenant._id), both.id, 'staff');
    const { key } = await mintKey(both.email);

    const inA = await items({ 'x-api-key': key, 'x-tenant-id': a.tenant._id });
    expect(inA.statusCode, inA.body).toBe(200);
    expect(names(inA)).toEqual(['Item A']);
    const inB = await items({ 'x-api-key': key, 'x-tenant-id': b.tenant._id });
    expect(inB.statusCode, inB.body).toBe(200);
    expect(names(inB)).toEqual(['Item B']);

    const missing = await items({ 'x-api-key': key });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().code).toBe('tenant_required');
    for (const tenant of [stranger.tenant._id, '0'.repeat(24), 'nope']) {
      const res = await items({ 'x-api-key': key, 'x-tenant-id': tenant });
      expect(res.statusCode, tenant).toBe(401);
    }
  });

  it('ignores x-tenant-id for a user of one tenant', async () => {
    const mine = await makeTenantWithTeam(t.app);
    const other = await makeTenantWithTeam(t.app);
    await makeMenuItem(t.app, mine.tenant, { name: 'Mine' });
    await makeMenuItem(t.app, other.tenant, { name: 'Theirs' });
    const { key } = await mintKey(mine.staff.email);
    const variants: Record<string, string>[] = [{}, { 'x-tenant-id': other.tenant._id }, { 'x-tenant-id': mine.tenant._id }, { 'x-tenant-id': 'garbage' }];
    for (const h of variants) {
      const res = await items({ 'x-api-key': key, ...h });
      expect(res.statusCode, JSON.stringify(h)).toBe(200);
      expect(names(res)).toEqual(['Mine']);
    }
  });

  it('answers an expired key exactly as an invalid one (401)', async () => {
    const team = await makeTenantWithTeam(t.app);
    const start = t.clock.now();
    onTestFinished(() => t.clock.set(start));
    const { key } = await mintKey(team.admin.email);
    const fresh = await mintKey(team.admin.email);
    t.clock.advance(29 * 86_400_000);
    expect((await items({ 'x-api-key': key })).statusCode).toBe(200);
    t.clock.advance(2 * 86_400_000);
    const expired = await items({ 'x-api-key': key });
    const invalid = await items({ 'x-api-key': 'e'.repeat(64) });
    expect(expired.statusCode).toBe(401);
    expect(invalid.statusCode).toBe(401);
    expect(expired.json()).toEqual(invalid.json());
    expect((await items({ 'x-api-key': fresh.key })).statusCode).toBe(401);
    const list = await cli('api-keys:list', '--email', team.admin.email);
    expect(list.out).toHaveLength(2);
    for (const line of list.out) expect(line).toContain('expired');
    // A key minted now works for another 30 days.
    const renewed = await mintKey(team.admin.email);
    expect((await items({ 'x-api-key': renewed.key })).statusCode).toBe(200);
  });
});
