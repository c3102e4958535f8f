import { Type, type Static } from '@sinclair/typebox';
import { LABEL_REASONS, LABEL_STATUSES } from '../../db/schema/inventory.js';
import { Body, Id, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';

/** Labels and their scan (spec "LabelToken", 4.8 `POST /inventory/labels`, `POST /inventory/scan/:token`). */

export const CreateLabelBody = Body({
  itemId: Id,
  quantity: Type.Number({ minimum: 0.001, maximum: 1_000_000, description: 'in the item’s unit, at most 3 decimals; taken out of stock by the scan' }),
  reason: StringEnum(LABEL_REASONS, { description: 'the reason of the exit movement the scan creates' }),
  notes: Type.Optional(Type.String({ maxLength: 500 })),
  pdvId: Type.Optional(Id),
});

export const LabelToken = Type.Object(
  {
    _id: Type.String(),
    token: Type.String({ format: 'uuid', description: 'single use: the scan URL ends with it' }),
    item: Type.String(),
    quantity: Type.Number(),
    reason: StringEnum(LABEL_REASONS),
    notes: Nullable(Type.String()),
    status: StringEnum(LABEL_STATUSES),
    createdAt: Timestamp,
    pdv: Nullable(Type.String(), { description: 'the PDV whose stock the scan takes from; null: the master catalog' }),
    labelUrl: Type.String({ description: 'the printable label (PDF, 4 x 2 in)' }),
    scanUrl: Type.String({ description: 'what the label’s QR code holds; a scanning client POSTs to it' }),
  },
  { $id: 'LabelToken' },
);

/** The movement a scan created (spec "InventoryMovement"), as `toMovementView` shows it. */

/** The token is any string here: a malformed one is unknown (404), as the spec's scan errors say. */
export const ScanParams = Type.Object({ slug: Type.String({ maxLength: 64 }), token: Type.String() });

/**
 * A PDF file, sent as bytes (never serialized). In Fastify's per-media-type form, so that `/openapi.json`
 * shows `application/pdf` for the file and keeps the errors `application/json`.
 */
export const PdfFile = Type.Unsafe<Buffer>({ content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } });

export type CreateLabelInput = Static<typeof CreateLabelBody>;
export type LabelTokenView = Static<typeof LabelToken>;
