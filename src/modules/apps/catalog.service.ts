import { randomUUID } from 'node:crypto';
import bcrypt from 'bcrypt';
import { and, count, eq, inArray } from 'drizzle-orm';
import { newId } from '../../db/ids.js';
import { appInstallations, type AppScope } from '../../db/schema/apps.js';
import { randomToken } from '../../platform/crypto.js';
import { Conflict, Invalid, NotFound, isUniqueViolation } from '../../platform/domain-errors.js';
import type { ModuleDeps } from '../../platform/module.js';
import * as q from './catalog.queries.js';
import type { AppRow } from './catalog.queries.js';
import type { AppView, CreateAppInput, OperatorAppView, UpdateAppInput } from './catalog.schemas.js';

export function toAppView(a: AppRow): AppView {
  return {
    _id: a.id,
    slug: a.slug,
    name: a.name,
    description: a.description,
    clientId: a.clientId,
    scopes: a.scopes,
    webhookUrl: a.webhookUrl,
    status: a.status,
    publishedAt: a.publishedAt?.toISOString() ?? null,
    createdAt: a.createdAt.toISOString(),
  };
}

/**
 * The marketplace's Apps: the operator (superadmin) creates, edits and publishes them; tenants see the
 * published ones. The kill-switch (`deprecate`, run from the CLI) retires an App and revokes every
 * installation of it in the same transaction.
 */
export function catalogService(deps: ModuleDeps) {
  const { db, bypass, config, clock } = deps;

  /** Active installations per App, across tenants (the operator's view). */
  async function activeCounts(appIds: string[]): Promise<Map<string, number>> {
    if (!appIds.length) return new Map();
    const rows = await bypass('app-operator', (tx) =>
      tx
        .select({ appId: appInstallations.appId, n: count() })
        .from(appInstallations)
        .where(and(inArray(appInstallations.appId, appIds), eq(appInstallations.status, 'active')))
        .groupBy(appInstallations.appId),
    );
    return new Map(rows.map((r) => [r.appId, r.n]));
  }

  async function operatorView(a: AppRow, counts?: Map<string, number>): Promise<OperatorAppView> {
    const n = (counts ?? (await activeCounts([a.id]))).get(a.id) ?? 0;
    return { ...toAppView(a), deprecatedAt: a.deprecatedAt?.toISOString() ?? null, updatedAt: a.updatedAt.toISOString(), activeInstallations: n };
  }

  async function load(id: string): Promise<AppRow> {
    const app = await q.findAppById(db, id);
    if (!app) throw new NotFound('App');
    return app;
  }

  function checkWebhook(scopes: readonly AppScope[], webhookUrl: string | null) {
    if (scopes.includes('webhooks.subscribe') && !webhookUrl) {
      throw new Invalid('webhookUrl', 'is required for an App with the webhooks.subscribe scope');
    }
  }

  return {
    async list(): Promise<OperatorAppView[]> {
      const rows = await q.listApps(db);
      const counts = await activeCounts(rows.map((r) => r.id));
      return Promise.all(rows.map((r) => operatorView(r, counts)));
    },

    get: async (id: string) => operatorView(await load(id)),

    async create(input: CreateAppInput) {
      checkWebhook(input.scopes, input.webhookUrl ?? null);
      const clientSecret = randomToken(32);
      try {
        const app = await q.insertApp(db, {
          id: newId(),
          slug: input.slug,
          name: input.name,
          description: input.description ?? '',
          clientId: randomUUID(),
          clientSecretHash: await bcrypt.hash(clientSecret, config.bcryptCost),
          scopes: input.scopes,
          webhookUrl: input.webhookUrl ?? null,
        });
        return { app: await operatorView(app, new Map()), clientSecret };
      } catch (err) {
        if (isUniqueViolation(err, 'apps_slug_key')) throw new Conflict(`An App with slug ${input.slug} exists`, 'slug_taken');
        throw err;
      }
    },

    /**
     * Name, description, scopes and webhook URL. A scope taken away stays on the installations that hold
     * it until they are reinstalled (the tenant consented to it); new installs cannot ask for it.
     */
    async update(id: string, input: UpdateAppInput) {
      const app = await load(id);
      if (app.status === 'deprecated') throw new Conflict('A deprecated App cannot be changed', 'app_deprecated');
      const scopes = input.scopes ?? app.scopes;
      const webhookUrl = input.webhookUrl === undefined ? app.webhookUrl : input.webhookUrl;
      checkWebhook(scopes, webhookUrl);
      const updated = await q.updateApp(db, id, { name: input.name, description: input.description, scopes, webhookUrl });
      return operatorView(updated!);
    },

    /** draft -> published (a repeat is a no-op); a deprecated App is never published again. */
    async publish(id: string) {
      const app = await load(id);
      if (app.status === 'deprecated') throw new Conflict('A deprecated App cannot be published again', 'app_deprecated');
      if (app.status === 'published') return operatorView(app);
      return operatorView((await q.updateApp(db, id, { status: 'published', publishedAt: clock.now() }))!);
    },

    /**
     * The kill-switch: the App becomes `deprecated` and every active installation of it `revoked`, in one
     * transaction across tenants. Their tokens fail on the next request in every process (the guard reads
     * the installation's status on each call) and their pending webhooks are not sent.
     */
    async deprecate(slug: string): Promise<{ app: OperatorAppView; revoked: number }> {
      const now = clock.now();
      const result = await bypass('app-operator', async (tx) => {
        const app = await q.findAppBySlug(tx, slug);
        if (!app) throw new NotFound('App');
        const updated = await q.updateApp(tx, app.id, { status: 'deprecated', deprecatedAt: app.deprecatedAt ?? now });
        const revoked = await tx
          .update(appInstallations)
          .set({ status: 'revoked', revokedAt: now })
          .where(and(eq(appInstallations.appId, app.id), eq(appInstallations.status, 'active')))
          .returning({ id: appInstallations.id });
        return { app: updated!, revoked: revoked.length };
      });
      return { app: await operatorView(result.app), revoked: result.revoked };
    },

    /** Published Apps, for tenants. */
    listPublished: async (): Promise<AppView[]> => (await q.listApps(db, 'published')).map(toAppView),

    /** A published App by slug; 404 for draft, deprecated or unknown (spec 4.1). */
    async getPublished(slug: string): Promise<AppView> {
      const app = await q.findAppBySlug(db, slug, 'published');
      if (!app) throw new NotFound('App');
      return toAppView(app);
    },

    /** Any App by slug (the install checks its status itself), or null. */
    findBySlug: (slug: string) => q.findAppBySlug(db, slug),
    findById: (id: string) => q.findAppById(db, id),
  };
}

export type CatalogService = ReturnType<typeof catalogService>;
