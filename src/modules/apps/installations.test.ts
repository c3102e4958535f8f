import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installApp, makePublishedApp } from '../../../test/apps.js';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import { makeSuperadmin, makeTenantWithTeam, type TestUser } from '../../../test/factories.js';
import { appInstallations } from '../../db/schema/apps.js';

let t: TestApp;
let sa: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  sa = await makeSuperadmin(t.app);
});
afterAll(() => t.close());

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string> = {}, payload?: object) =>
  t.app.inject({ method, url, headers, payload });
const installUrl = (slug: string, appSlug: string) => `/t/${slug}/admin/marketplace/apps/${appSlug}/install`;

async function installationRow(id: string) {
  return t.db.database.owner(async (db) => (await db.select().from(appInstallations).where(eq(appInstallations.id, id)))[0]);
}

describe('the marketplace as the tenant admin sees it', () => {
  it('installs a published App with a subset of its scopes: the token once, the secret never', async () => {
    const team = await makeTenantWithTeam(t.app);
    const a = await makePublishedApp(t.app, sa);
    const res = await call('POST', installUrl(team.slug, a.slug), team.admin.headers, { scopes: ['menu.read', 'orders.read'] });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['accessToken', 'installation']);
    expect(body.accessToken).toMatch(/^[0-9a-f]{128}$/);
    expect(body.installation).toMatchObject({
      tenant: team.tenant._id,
      app: a.id,
      installedBy: team.admin.id,
      scopes: ['menu.read', 'orders.read'],
      status: 'active',
      revokedAt: null,
    });
    expect(JSON.stringify(body)).not.toMatch(/accessTokenHash|signingSecret/);
    // Stored: a bcrypt hash of the token and an encrypted 64-hex signing secret.
    const row = await installationRow(body.installation._id);
    expect(row.accessTokenHash).toMatch(/^\$2[aby]\$/);
    expect(row.accessTokenHash).not.toContain(body.accessToken);
    expect(row.tokenLookup).toBe(body.accessToken.slice(0, 16));
    expect(row.signingSecret).toMatch(/^v1:/);

    const list = await call('GET', `/t/${team.slug}/admin/marketplace/installations`, team.admin.headers);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toHaveLength(1);
    expect(list.json()[0]).toMatchObject({ _id: body.installation._id, app: { _id: a.id, slug: a.slug, status: 'published' } });
    expect(list.body).not.toMatch(/accessToken|signingSecret|clientSecret/);
  });

  it('checks in the order of 4.1: published (400), scopes a subset (400), no active installation (409)', async () => {
    const team = await makeTenantWithTeam(t.app);
    const draft = await makePublishedApp(t.app, sa, { publish: false });
    // Unpublished and asking for foreign scopes: the first rule answers.
    const notPublished = await call('POST', installUrl(team.slug, draft.slug), team.admin.headers, { scopes: ['menu.write'] });
    expect(notPublished.statusCode).toBe(400);
    expect(notPublished.json().code).toBe('app_not_published');
    const unknown = await call('POST', installUrl(team.slug, 'no-such-app'), team.admin.headers, { scopes: ['menu.read'] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().code).toBe('app_not_published');

    const a = await makePublishedApp(t.app, sa, { scopes: ['menu.read'] });
    await installApp(t.app, team, a.slug, ['menu.read']);
    // Already installed and asking for foreign scopes: the scope rule comes before the 409.
    const foreign = await call('POST', installUrl(team.slug, a.slug), team.admin.headers, { scopes: ['menu.read', 'orders.read'] });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json()).toMatchObject({ code: 'invalid_scopes' });
    expect(foreign.json().message).toContain('orders.read');
    const again = await call('POST', installUrl(team.slug, a.slug), team.admin.headers, { scopes: ['menu.read'] });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('already_installed');

    // A deprecated App (the kill-switch) is not installable either.
    const old = await makePublishedApp(t.app, sa, { scopes: ['menu.read'] });
    await t.app.services.catalog.deprecate(old.slug);
    expect((await call('POST', installUrl(team.slug, old.slug), team.admin.headers, { scopes: ['menu.read'] })).statusCode).toBe(400);
  });

  it('lets two installs at once produce one active installation', async () => {
    const team = await makeTenantWithTeam(t.app);
    const a = await makePublishedApp(t.app, sa, { scopes: ['menu.read'] });
    const answers = await Promise.all([1, 2, 3].map(() => call('POST', installUrl(team.slug, a.slug), team.admin.headers, { scopes: ['menu.read'] })));
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
    expect((await call('GET', `/t/${team.slug}/admin/marketplace/installations`, team.admin.headers)).json()).toHaveLength(1);
  });

  it('revokes at once, keeps revokedAt on a repeat, and allows a new install afterwards', async () => {
    const team = await makeTenantWithTeam(t.app);
    const a = await makePublishedApp(t.app, sa, { scopes: ['menu.read'] });
    const first = await installApp(t.app, team, a.slug, ['menu.read']);
    expect((await call('GET', '/public/v1/menu/items', first.headers)).statusCode).toBe(200);

    const url = `/t/${team.slug}/admin/marketplace/installations/${first.installation._id}`;
    const revoked = await call('DELETE', url, team.admin.headers);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({ status: 'revoked' });
    const at = revoked.json().revokedAt;
    expect(at).toBeTruthy();
    // The verified token was cached: it still fails on the very next call.
    const after = await call('GET', '/public/v1/menu/items', first.headers);
    expect(after.statusCode).toBe(401);

    t.clock.advance(60_000);
    const repeat = await call('DELETE', url, team.admin.headers);
    expect(repeat.statusCode).toBe(200);
    expect(repeat.json().revokedAt).toBe(at);
    expect((await call('GET', `/t/${team.slug}/admin/marketplace/installations`, team.admin.headers)).json()).toEqual([]);

    const second = await installApp(t.app, team, a.slug, ['menu.read']);
    expect(second.token).not.toBe(first.token);
    expect((await call('GET', '/public/v1/menu/items', second.headers)).statusCode).toBe(200);
    expect((await call('GET', '/public/v1/menu/items', first.headers)).statusCode).toBe(401);
  });

  it('answers 401 without a token, 403 to staff and the accountant, 400 for a bad body, 404 for another tenant\'s installation', async () => {
    const team = await makeTenantWithTeam(t.app);
    const other = await makeTenantWithTeam(t.app);
    const a = await makePublishedApp(t.app, sa, { scopes: ['menu.read'] });
    const theirs = await installApp(t.app, other, a.slug, ['menu.read']);
    const routes: ['GET' | 'POST' | 'DELETE', string, object?][] = [
      ['GET', `/t/${team.slug}/admin/marketplace/apps`],
      ['GET', `/t/${team.slug}/admin/marketplace/apps/${a.slug}`],
      ['GET', `/t/${team.slug}/admin/marketplace/installations`],
      ['POST', installUrl(team.slug, a.slug), { scopes: ['menu.read'] }],
      ['DELETE', `/t/${team.slug}/admin/marketplace/installations/${theirs.installation._id}`],
    ];
    for (const [method, url, body] of routes) {
      expect((await call(method, url, {}, body)).statusCode, `${method} ${url}`).toBe(401);
      expect((await call(method, url, team.staff.headers, body)).statusCode, `${method} ${url}`).toBe(403);
      expect((await call(method, url, team.accountant.headers, body)).statusCode, `${method} ${url}`).toBe(403);
    }
    for (const payload of [{}, { scopes: 'menu.read' }, { scopes: ['menu.read'], extra: 1 }, { scopes: ['menu.read', 'menu.read'] }]) {
      const res = await call('POST', installUrl(team.slug, a.slug), team.admin.headers, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
    }
    const notMine = await call('DELETE', `/t/${team.slug}/admin/marketplace/installations/${theirs.installation._id}`, team.admin.headers);
    expect(notMine.statusCode).toBe(404);
    expect((await call('GET', '/public/v1/menu/items', theirs.headers)).statusCode).toBe(200);
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: other.slug,
      outsider: { slug: team.slug, headers: team.admin.headers },
      requests: [{ method: 'DELETE', path: `/t/:slug/admin/marketplace/installations/${theirs.installation._id}` }],
      snapshot: () => installationRow(theirs.installation._id),
    });
  });

  it('lets the superadmin act in any tenant', async () => {
    const team = await makeTenantWithTeam(t.app);
    const a = await makePublishedApp(t.app, sa, { scopes: ['menu.read'] });
    const res = await call('POST', installUrl(team.slug, a.slug), sa.headers, { scopes: ['menu.read'] });
    expect(res.statusCode).toBe(201);
    expect(res.json().installation.installedBy).toBe(sa.id);
  });
});
