import { Type, type Static } from '@sinclair/typebox';
import { DELIVERY_EVENT_STATUSES, DELIVERY_PROVIDERS } from '../../db/schema/delivery.js';
import { Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';
import type { DeliveryEventRow } from './ingest.queries.js';

/** What a webhook route answers: received (queued) or a repeat of a key seen in the last 24 hours. */
export const WebhookReceipt = Type.Union([
  Type.Object({
    received: Type.Literal(true),
    eventId: Type.String({ description: 'our delivery event id (GET /t/:slug/marketplace/events)' }),
    sandbox: Type.Optional(Type.Boolean({ description: 'true when accepted without a signature check (the integration has no secret / JWKS URL)' })),
  }),
  Type.Object({ deduplicated: Type.Literal(true) }),
]);

export const DeliveryEvent = Type.Object({
  _id: Type.String(),
  integrationId: Type.String(),
  provider: StringEnum(DELIVERY_PROVIDERS),
  type: Type.String({ description: "the platform's event name (PLACED, NEW_ORDER, orders.notification...)" }),
  status: StringEnum(DELIVERY_EVENT_STATUSES, {
    description: 'queued: waiting for the order job; created / duplicate: its order (orderId); needs_review: kept for a person (reviewReason); ignored; failed (error)',
  }),
  idempotencyKey: Nullable(Type.String()),
  externalOrderId: Nullable(Type.String()),
  orderId: Nullable(Type.String()),
  reviewReason: Nullable(Type.String({ description: 'why it waits for a person, e.g. the lines not matched to a menu item' })),
  error: Nullable(Type.String()),
  attempts: Type.Integer({ description: 'order job runs so far' }),
  receivedAt: Timestamp,
  processedAt: Nullable(Timestamp),
  ackLatencyMs: Nullable(Type.Integer({ description: 'provider_a: receive time to order created, ms' })),
});
export type DeliveryEventView = Static<typeof DeliveryEvent>;

export const DeliveryEventPage = Type.Object({
  items: Type.Array(DeliveryEvent),
  total: Type.Integer(),
  page: Type.Integer(),
  limit: Type.Integer(),
  pages: Type.Integer({ description: 'ceil(total / limit); 0 when there is none' }),
});

export const DeliveryEventsQuery = Type.Object(
  {
    status: Type.Optional(StringEnum(DELIVERY_EVENT_STATUSES)),
    page: Type.Integer({ minimum: 1, maximum: 100_000, default: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  },
  { additionalProperties: false },
);
export type DeliveryEventsInput = Static<typeof DeliveryEventsQuery>;

export function toDeliveryEventView(row: DeliveryEventRow): DeliveryEventView {
  return {
    _id: row.id,
    integrationId: row.integrationId,
    provider: row.provider,
    type: row.type,
    status: row.status,
    idempotencyKey: row.idempotencyKey,
    externalOrderId: row.externalOrderId,
    orderId: row.orderId,
    reviewReason: row.reviewReason,
    error: row.error,
    attempts: row.attempts,
    receivedAt: row.receivedAt.toISOString(),
    processedAt: row.processedAt?.toISOString() ?? null,
    ackLatencyMs: row.ackLatencyMs,
  };
}
