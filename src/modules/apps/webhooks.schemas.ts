import { Type, type Static } from '@sinclair/typebox';
import { APP_EVENT_TYPES, DELIVERY_STATUSES } from '../../db/schema/apps.js';
import { Id, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';

export const DeliveryAttemptView = Type.Object({
  at: Timestamp,
  statusCode: Nullable(Type.Integer(), { description: 'the App\'s answer; null when none came (timeout, network error, refused address)' }),
  error: Nullable(Type.String()),
  durationMs: Type.Integer({ minimum: 0 }),
});

/** One webhook delivery as the tenant admin's log shows it (never the signature or the secret). */
export const Delivery = Type.Object({
  _id: Id,
  installation: Id,
  eventId: Type.String({ description: 'the `webhook-id` header and the body\'s `id`, the same on every attempt' }),
  eventType: StringEnum(APP_EVENT_TYPES),
  status: StringEnum(DELIVERY_STATUSES, {
    description: 'pending: waiting for its next attempt; delivered: a 2xx came back; failed: attempts used up, 410 Gone or a refused address; ' +
      'cancelled: the installation was revoked or its webhooks disabled before it went out',
  }),
  attemptCount: Type.Integer({ minimum: 0 }),
  attempts: Type.Array(DeliveryAttemptView),
  nextAttemptAt: Nullable(Timestamp, { description: 'when the next attempt is due (pending deliveries)' }),
  deliveredAt: Nullable(Timestamp),
  createdAt: Timestamp,
});
export type DeliveryView = Static<typeof Delivery>;

export const DeliveryPage = Type.Object({
  items: Type.Array(Delivery),
  total: Type.Integer({ description: 'deliveries of this installation' }),
  page: Type.Integer(),
  limit: Type.Integer(),
  pages: Type.Integer({ description: 'ceil(total / limit); 0 when there is none' }),
});
export type DeliveryPageView = Static<typeof DeliveryPage>;

export const DeliveriesQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, maximum: 100_000, default: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  },
  { additionalProperties: false },
);
export type DeliveriesInput = Static<typeof DeliveriesQuery>;
