import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { App } from '../src/app.js';
import type { AppScope } from '../src/db/schema/apps.js';
import type { TestUser } from './factories.js';

/** A published App created through the operator's routes. */
export async function makePublishedApp(
  app: App,
  superadmin: TestUser,
  opts: { scopes?: AppScope[]; webhookUrl?: string | null; slug?: string; publish?: boolean } = {},
) {
  const slug = opts.slug ?? `app-${randomBytes(4).toString('hex')}`;
  const scopes = opts.scopes ?? ['orders.read', 'menu.read', 'reservations.read', 'reservations.write'];
  const created = await app.inject({
    method: 'POST',
    url: '/api/superadmin/apps',
    headers: superadmin.headers,
    payload: { slug, name: `App ${slug}`, scopes, webhookUrl: opts.webhookUrl ?? (scopes.includes('webhooks.subscribe') ? 'https://example.com/hooks' : null) },
  });
  expect(created.statusCode, created.body).toBe(201);
  const id: string = created.json().app._id;
  if (opts.publish !== false) {
    const published = await app.inject({ method: 'POST', url: `/api/superadmin/apps/${id}/publish`, headers: superadmin.headers });
    expect(published.statusCode, published.body).toBe(200);
  }
  return { id, slug, scopes };
}

/** Installs `appSlug` in the admin's tenant; the access token and the installation. */
export async function installApp(app: App, team: { slug: string; admin: TestUser }, appSlug: string, scopes: AppScope[]) {
  const res = await app.inject({
    method: 'POST',
    url: `/t/${team.slug}/admin/marketplace/apps/${appSlug}/install`,
    headers: team.admin.headers,
    payload: { scopes },
  });
  expect(res.statusCode, res.body).toBe(201);
  const body = res.json();
  return { token: body.accessToken as string, installation: body.installation as { _id: string; status: string }, headers: { authorization: `Bearer ${body.accessToken}` } };
}
