import { Type, type Static } from '@sinclair/typebox';
import { APP_SCOPES, APP_STATUSES } from '../../db/schema/apps.js';
import { Body, Id, Nullable, Slug, StringEnum, Timestamp } from '../../platform/schemas.js';

export const Scope = StringEnum(APP_SCOPES);

const WebhookUrl = Type.String({
  format: 'uri',
  pattern: '^https?://',
  maxLength: 2000,
  description: 'Where the App receives signed webhooks; https recommended (plain http accepted in v1)',
});

/** An App as tenants see it (spec section 2): never its client secret or hash. */
export const App = Type.Object({
  _id: Id,
  slug: Slug,
  name: Type.String(),
  description: Type.String(),
  clientId: Type.String({ format: 'uuid' }),
  scopes: Type.Array(Scope),
  webhookUrl: Nullable(Type.String()),
  status: StringEnum(APP_STATUSES),
  publishedAt: Nullable(Timestamp),
  createdAt: Timestamp,
});
export type AppView = Static<typeof App>;

/** An App as the operator sees it: also when it was deprecated and how many tenants have it active. */
export const OperatorApp = Type.Object({
  ...App.properties,
  deprecatedAt: Nullable(Timestamp),
  updatedAt: Timestamp,
  activeInstallations: Type.Integer({ minimum: 0 }),
});
export type OperatorAppView = Static<typeof OperatorApp>;

/** Answer of the creation: the client secret appears here only. */
export const CreatedApp = Type.Object({
  app: OperatorApp,
  clientSecret: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'Shown once; stored only as a bcrypt hash' }),
});

export const CreateAppBody = Body({
  slug: Slug,
  name: Type.String({ minLength: 1, maxLength: 120 }),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  scopes: Type.Array(Scope, { minItems: 1, uniqueItems: true, maxItems: APP_SCOPES.length }),
  webhookUrl: Type.Optional(Nullable(WebhookUrl)),
});
export type CreateAppInput = Static<typeof CreateAppBody>;

export const UpdateAppBody = Body({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  scopes: Type.Optional(Type.Array(Scope, { minItems: 1, uniqueItems: true, maxItems: APP_SCOPES.length })),
  webhookUrl: Type.Optional(Nullable(WebhookUrl)),
});
export type UpdateAppInput = Static<typeof UpdateAppBody>;

export const AppSlugParams = Type.Object({ slug: Type.String({ maxLength: 64 }), appSlug: Type.String({ maxLength: 64 }) });
