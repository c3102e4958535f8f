import { Type, type Static } from '@sinclair/typebox';
import { INSTALLATION_STATUSES } from '../../db/schema/apps.js';
import { pageLimits, pageQuery } from '../../platform/pagination.js';
import { Body, Id, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';
import { App, Scope } from './catalog.schemas.js';

const installationFields = {
  _id: Id,
  tenant: Id,
  installedBy: Id,
  scopes: Type.Array(Scope),
  status: StringEnum(INSTALLATION_STATUSES),
  createdAt: Timestamp,
  revokedAt: Nullable(Timestamp),
  webhooksDisabledAt: Nullable(Timestamp, { description: 'Set when the App answered 410 Gone to a webhook: no deliveries until enabled again' }),
};

/** An installation as the install and revoke answer it: `app` is the App's id. Never the token hash or signing secret. */
export const Installation = Type.Object({ ...installationFields, app: Id });
export type InstallationView = Static<typeof Installation>;

/** An installation in the list: its App populated. */
export const InstallationWithApp = Type.Object({ ...installationFields, app: App });
export type InstallationWithAppView = Static<typeof InstallationWithApp>;

export const InstallBody = Body({
  // Any strings here: the install checks, in the spec's order, that the App is published, then that
  // these are a subset of its scopes (400 either way, with the reason).
  scopes: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 20, uniqueItems: true }),
});

export const Installed = Type.Object({
  installation: Installation,
  accessToken: Type.String({ pattern: '^[0-9a-f]{128}$', description: 'Shown once: store it; it is kept only as a bcrypt hash' }),
});

/** One active installation per App (a partial unique index): bounded by the catalog; the default is the maximum. */
export const INSTALLATIONS_PAGE = pageLimits({ default: 200, maximum: 200, what: 'installations' });
export const InstallationsQuery = Type.Object(pageQuery(INSTALLATIONS_PAGE));
