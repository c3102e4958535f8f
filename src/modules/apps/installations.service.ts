import bcrypt from 'bcrypt';
import { newId } from '../../db/ids.js';
import type { AppScope } from '../../db/schema/apps.js';
import type { TenantCtx } from '../../platform/auth/guards.js';
import { encryptSecret, randomToken } from '../../platform/crypto.js';
import { Conflict, InvalidRequest, NotFound, isUniqueViolation } from '../../platform/domain-errors.js';
import type { ModuleDeps } from '../../platform/module.js';
import { pageWindow } from '../../platform/pagination.js';
import { toAppView, type CatalogService } from './catalog.service.js';
import type { AuditService } from '../audit/index.js';
import * as q from './installations.queries.js';
import type { InstallationRow } from './installations.queries.js';
import { INSTALLATIONS_PAGE, type InstallationView, type InstallationWithAppView } from './installations.schemas.js';

/** Hex characters of the access token that find its installation (indexed); the rest is only in the bcrypt hash. */
export const TOKEN_LOOKUP_LENGTH = 16;

export function toInstallationView(i: InstallationRow): InstallationView {
  return {
    _id: i.id,
    tenant: i.tenantId,
    app: i.appId,
    installedBy: i.installedBy,
    scopes: i.scopes,
    status: i.status,
    createdAt: i.createdAt.toISOString(),
    revokedAt: i.revokedAt?.toISOString() ?? null,
    webhooksDisabledAt: i.webhooksDisabledAt?.toISOString() ?? null,
  };
}

/** Installations of Apps in a tenant (spec 4.1 and section 3): install with a token shown once, list, revoke. */
export function installationsService(deps: ModuleDeps, { catalog, audit }: { catalog: CatalogService; audit: AuditService }) {
  const actor = (ctx: TenantCtx) => ({ actorId: ctx.user.id, actorLabel: ctx.user.email, targetType: 'app_installation' });
  const { config, clock } = deps;

  return {
    /** One page (INSTALLATIONS_PAGE) of the active installations with their App, and their number. */
    async list(ctx: TenantCtx, query: { page?: number; limit?: number } = {}): Promise<{ installations: InstallationWithAppView[]; total: number }> {
      const { rows, total } = await ctx.db.run((tx) => q.listActiveWithApps(tx.db, tx.tenantId, pageWindow(query, INSTALLATIONS_PAGE)));
      return { installations: rows.map(({ installation, app }) => ({ ...toInstallationView(installation), app: toAppView(app) })), total };
    },

    /**
     * Installs a published App with some of its scopes, in the spec's order: the App is published (400),
     * the scopes are a subset of its scopes (400), no active installation of it in the tenant (409; two
     * installs at once meet the partial unique index). The access token (64 random bytes in hex) is
     * answered once; the signing secret (32 random bytes in hex) is kept encrypted and never answered.
     */
    async install(ctx: TenantCtx, appSlug: string, scopes: string[]) {
      const app = await catalog.findBySlug(appSlug);
      if (!app || app.status !== 'published') throw new InvalidRequest(`App ${appSlug} is not published`, 'app_not_published');
      const foreign = scopes.filter((s) => !(app.scopes as string[]).includes(s));
      if (foreign.length) {
        throw new InvalidRequest(`Scopes not offered by ${app.slug}: ${foreign.join(', ')} (it offers ${app.scopes.join(', ')})`, 'invalid_scopes');
      }
      const accessToken = randomToken(64);
      const accessTokenHash = await bcrypt.hash(accessToken, config.bcryptCost);
      const signingSecret = encryptSecret(config.encryptionKey, randomToken(32));
      try {
        const row = await ctx.db.run(async (tx) => {
          const inserted = await q.insertInstallation(tx.db, {
            tenantId: tx.tenantId,
            id: newId(),
            appId: app.id,
            installedBy: ctx.user.id,
            scopes: scopes as AppScope[],
            tokenLookup: accessToken.slice(0, TOKEN_LOOKUP_LENGTH),
            accessTokenHash,
            signingSecret,
          });
          await audit.record(tx, { action: 'app.installed', ...actor(ctx), targetId: inserted.id, details: { app: app.slug, scopes } });
          return inserted;
        });
        return { installation: toInstallationView(row), accessToken };
      } catch (err) {
        if (isUniqueViolation(err, 'app_installations_active_key')) {
          throw new Conflict(`${app.name} is already installed: revoke the active installation first`, 'already_installed');
        }
        throw err;
      }
    },

    /** active -> revoked; a repeat answers the same record, `revokedAt` unchanged. The token fails at once on every process. */
    revoke: (ctx: TenantCtx, id: string): Promise<InstallationView> =>
      ctx.db.run(async (tx) => {
        const current = await q.findInstallation(tx.db, tx.tenantId, id, true);
        if (!current) throw new NotFound('Installation');
        if (current.status === 'revoked') return toInstallationView(current);
        const revoked = await q.revokeInstallation(tx.db, tx.tenantId, id, clock.now());
        await audit.record(tx, { action: 'app.revoked', ...actor(ctx), targetId: id, details: { appId: current.appId } });
        return toInstallationView(revoked);
      }),
  };
}

export type InstallationsService = ReturnType<typeof installationsService>;
