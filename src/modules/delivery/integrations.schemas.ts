import { Type, type Static } from '@sinclair/typebox';
import { DELIVERY_PROVIDERS } from '../../db/schema/delivery.js';
import { Body, Id, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';

const Secret = (description: string) => Type.String({ minLength: 1, maxLength: 500, description });
const JwksUrl = Type.String({
  pattern: '^https?://[^\\s/?#]+[^\\s]*$',
  maxLength: 2000,
  description: 'provider_c: where its webhook JWTs\' public keys are (JWKS), http(s) URL',
});

/** A tenant's integration with a delivery platform (spec 2 MarketplaceIntegration): never a secret, only whether it is set. */
export const Integration = Type.Object({
  _id: Id,
  tenant: Id,
  provider: StringEnum(DELIVERY_PROVIDERS),
  active: Type.Boolean(),
  credentials: Type.Object({
    clientId: Type.String(),
    merchantId: Type.String(),
    clientSecretSet: Type.Boolean({ description: 'The client secret is write-only' }),
  }),
  webhookSecretSet: Type.Boolean({ description: 'The webhook secret is write-only; unset: webhooks accepted unsigned (sandbox)' }),
  jwksUrl: Nullable(Type.String()),
  lastSyncAt: Nullable(Timestamp, { description: 'Last successful catalog sync' }),
  syncedItemCount: Type.Integer({ description: 'Items propagated in the last sync' }),
  tokenExpiresAt: Nullable(Timestamp, { description: 'When the cached platform token expires (renewed 60 s before)' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type IntegrationView = Static<typeof Integration>;

export const IntegrationList = Type.Array(Integration);

export const CreateIntegrationBody = Body({
  provider: StringEnum(DELIVERY_PROVIDERS),
  credentials: Body({
    clientId: Secret('The platform\'s OAuth client id'),
    clientSecret: Secret('The platform\'s OAuth client secret (write-only)'),
    merchantId: Secret('The restaurant\'s id at the platform (provider_b: store id)'),
  }),
  webhookSecret: Type.Optional(Nullable(Secret('provider_a, provider_b: the secret webhooks are signed with (write-only)'))),
  jwksUrl: Type.Optional(Nullable(JwksUrl)),
  active: Type.Optional(Type.Boolean({ description: 'Activate at once (the credentials are checked first); default false' })),
});

export const UpdateIntegrationBody = Body({
  credentials: Type.Optional(
    Body({
      clientId: Type.Optional(Secret('The platform\'s OAuth client id')),
      clientSecret: Type.Optional(Secret('The platform\'s OAuth client secret (write-only)')),
      merchantId: Type.Optional(Secret('The restaurant\'s id at the platform')),
    }),
  ),
  webhookSecret: Type.Optional(Nullable(Secret('The webhook secret (write-only); null clears it'))),
  jwksUrl: Type.Optional(Nullable(JwksUrl)),
});
