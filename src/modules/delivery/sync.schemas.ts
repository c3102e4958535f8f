import { Type, type Static } from '@sinclair/typebox';
import { DELIVERY_PROVIDERS, STATUS_PUSH_RESULTS } from '../../db/schema/delivery.js';
import { ORDER_STATUSES } from '../../db/schema/orders.js';
import { Id, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';

/** The answer of the sync routes: one catalog sync run per integration, its jobs queued (202). */
export const SyncRunsResponse = Type.Object({
  runs: Type.Array(
    Type.Object({
      runId: Id,
      integrationId: Id,
      provider: StringEnum(DELIVERY_PROVIDERS),
      items: Type.Integer({ description: 'Active menu items queued for this integration (one job each)' }),
    }),
  ),
});
export type SyncRunsView = Static<typeof SyncRunsResponse>;

export const OrderPushesParams = Type.Object({ slug: Type.String({ maxLength: 64 }), orderId: Id });

/** What the platform was told of one status change of its order. */
export const StatusPush = Type.Object({
  _id: Id,
  order: Id,
  integration: Id,
  provider: StringEnum(DELIVERY_PROVIDERS),
  externalOrderId: Type.String({ description: 'The order\'s id at the platform' }),
  status: StringEnum(ORDER_STATUSES, { description: 'The internal status the order moved to' }),
  providerStatus: Nullable(Type.String(), { description: 'The platform\'s status it maps to (spec 4.14); null: unsupported there' }),
  result: StringEnum(STATUS_PUSH_RESULTS, {
    description: 'pending (queued or retrying), pushed (the platform accepted it), skipped (no mapping: nothing sent), failed (refused, or out of attempts)',
  }),
  attempts: Type.Integer({ description: 'Calls made to the platform' }),
  error: Nullable(Type.String(), { description: 'The last error' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type StatusPushView = Static<typeof StatusPush>;

export const StatusPushList = Type.Array(StatusPush);
