import { Type, type Static } from '@sinclair/typebox';
import { PURCHASE_ORDER_STATUSES } from '../../db/schema/purchasing.js';
import { pageLimits, pageQuery } from '../../platform/pagination.js';
import { Body, CalendarDate, Id, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';

/**
 * Purchase orders (spec 2 "PurchaseOrder", 3, 4.8 `/inventory/purchase-orders`). Quantities are numbers in
 * the item's stock unit with at most 3 decimals; money is integer cents.
 */

/** Largest quantity of one line (kg, l or units): 10 million, as the inventory's. */
export const MAX_QUANTITY = 10_000_000;
/** Largest unit cost, in cents (R$ 1 million), as the inventory's. */
export const MAX_COST_CENTS = 100_000_000;
/** Most lines on one order. */
export const MAX_LINES = 200;

export const PurchaseOrderLineView = Type.Object({
  inventoryItemId: Type.String(),
  itemName: Type.String(),
  quantity: Type.Number({ description: 'ordered, in the item’s unit' }),
  unitCost: Type.Integer({ description: 'cents per unit' }),
  subtotal: Type.Integer({ description: 'quantity x unitCost, cents, rounded half up' }),
  receivedQuantity: Type.Number({ description: 'received so far' }),
});

export const PurchaseOrder = Type.Object(
  {
    _id: Type.String(),
    orderNumber: Type.String({ description: 'PO-YYYYMMDD-NNNN, the tenant’s local day' }),
    supplier: Nullable(Type.Object({ _id: Type.String(), name: Type.String(), cnpj: Nullable(Type.String({ description: 'formatted' })) })),
    items: Type.Array(PurchaseOrderLineView),
    totalCost: Type.Integer({ description: 'sum of the subtotals, cents' }),
    expectedDelivery: Nullable(Type.String({ format: 'date' })),
    notes: Nullable(Type.String()),
    status: StringEnum(PURCHASE_ORDER_STATUSES),
    suggestion: Nullable(Type.String({ description: 'the suggested purchase order it was approved from' })),
    createdBy: Nullable(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'PurchaseOrder' },
);
export type PurchaseOrderView = Static<typeof PurchaseOrder>;

/** Purchase orders grow every week; the panel lists them whole today, so the default is the maximum. */
export const PURCHASE_ORDERS_PAGE = pageLimits({ default: 500, maximum: 500, what: 'purchase orders' });

export const ListOrdersQuery = Type.Object({
  ...pageQuery(PURCHASE_ORDERS_PAGE),
  status: Type.Optional(StringEnum(PURCHASE_ORDER_STATUSES, { description: 'only orders with this status' })),
});

const LineInput = Type.Object(
  {
    inventoryItemId: Id,
    itemName: Type.Optional(Type.String({ minLength: 1, maxLength: 120, pattern: '\\S', description: 'default the inventory item’s name' })),
    quantity: Type.Number({ exclusiveMinimum: 0, maximum: MAX_QUANTITY, description: 'in the item’s unit; at most 3 decimals' }),
    unitCost: Type.Integer({ minimum: 0, maximum: MAX_COST_CENTS, description: 'cents per unit' }),
  },
  { additionalProperties: false },
);
const Lines = Type.Array(LineInput, { minItems: 1, maxItems: MAX_LINES, description: 'each item of the tenant’s live catalog once' });

export const CreateOrderBody = Body({
  supplierId: Type.Optional(Nullable(Id)),
  items: Lines,
  expectedDelivery: Type.Optional(Nullable(CalendarDate('expected delivery day'))),
  notes: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
});
export type CreateOrderInput = Static<typeof CreateOrderBody>;

export const GenerateOrderBody = Body({ supplierId: Type.Optional(Nullable(Id)) });
export type GenerateOrderInput = Static<typeof GenerateOrderBody>;

export const UpdateOrderBody = Body({
  supplierId: Type.Optional(Nullable(Id)),
  items: Type.Optional(Lines),
  status: Type.Optional(StringEnum(PURCHASE_ORDER_STATUSES, { description: 'draft -> sent -> cancelled; partial and received come only from receive' })),
  expectedDelivery: Type.Optional(Nullable(CalendarDate('expected delivery day'))),
  notes: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
});
export type UpdateOrderInput = Static<typeof UpdateOrderBody>;

export const ReceiveBody = Body({
  items: Type.Array(
    Type.Object(
      {
        inventoryItemId: Id,
        receivedQuantity: Type.Number({ exclusiveMinimum: 0, maximum: MAX_QUANTITY, description: 'in the item’s unit; at most 3 decimals; at most what remains' }),
      },
      { additionalProperties: false },
    ),
    { minItems: 1, maxItems: MAX_LINES },
  ),
});
export type ReceiveInput = Static<typeof ReceiveBody>;
