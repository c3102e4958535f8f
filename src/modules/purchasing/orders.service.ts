import { newId } from '../../db/ids.js';
import type { PurchaseOrderLine, PurchaseOrderRow, PurchaseOrderStatus, SupplierRow } from '../../db/schema/purchasing.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import { Conflict, Invalid, NotFound } from '../../platform/domain-errors.js';
import { pageWindow } from '../../platform/pagination.js';
import { fromMilli, hasGramPrecision, milli } from '../../platform/quantity.js';
import { DEFAULT_TIMEZONE, localDate } from '../../platform/time.js';
import { costOf } from '../inventory/index.js';
import * as q from './orders.queries.js';
import { PURCHASE_ORDERS_PAGE, type CreateOrderInput, type GenerateOrderInput, type PurchaseOrderView, type ReceiveInput, type UpdateOrderInput } from './orders.schemas.js';
import type { PurchasingParts } from './purchasing.service.js';
import * as sq from './suppliers.queries.js';
import { formatCnpj, suppliersPart } from './suppliers.service.js';

/** Who acts on purchase orders: the user (creator, movements) and the tenant's time zone (the day of the order number). */
export interface OrdersCaller {
  userId: string;
  timezone: string;
}

/** A line of a new draft, in the stored units: thousandths of the item's unit and cents per unit. */
export interface DraftLine {
  inventoryItemId: string;
  /** Default: the inventory item's name. */
  itemName?: string;
  quantityMilli: number;
  unitCostCents: number;
}

/** A new draft purchase order, as another part (predictions approving a suggestion) makes it inside its transaction. */
export interface DraftOrderInput {
  supplierId?: string | null;
  items: DraftLine[];
  notes?: string | null;
  expectedDelivery?: string | null;
  suggestionId?: string | null;
  userId: string;
  /** The tenant's time zone, for the day of the order number; default America/Sao_Paulo. */
  timezone?: string;
}

/**
 * Status moves through PUT (docs/decisions.md, "Purchasing: suppliers and purchase orders"): a draft is sent
 * or cancelled, a sent order cancelled; `partial` and `received` come only from receiving goods.
 */
export const STATUS_MOVES: Record<PurchaseOrderStatus, readonly PurchaseOrderStatus[]> = {
  draft: ['sent', 'cancelled'],
  sent: ['cancelled'],
  partial: [],
  received: [],
  cancelled: [],
};

const CLOSED: readonly PurchaseOrderStatus[] = ['received', 'cancelled'];

function toOrderView(order: PurchaseOrderRow, supplier: q.SupplierRef | null): PurchaseOrderView {
  return {
    _id: order.id,
    orderNumber: order.orderNumber,
    supplier: supplier && { _id: supplier.id, name: supplier.name, cnpj: supplier.cnpj === null ? null : formatCnpj(supplier.cnpj) },
    items: order.items.map((l) => ({
      inventoryItemId: l.inventoryItemId,
      itemName: l.itemName,
      quantity: fromMilli(l.quantityMilli),
      unitCost: l.unitCostCents,
      subtotal: l.subtotalCents,
      receivedQuantity: fromMilli(l.receivedMilli),
    })),
    totalCost: order.totalCostCents,
    expectedDelivery: order.expectedDelivery,
    notes: order.notes,
    status: order.status,
    suggestion: order.suggestionId,
    createdBy: order.createdBy,
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
  };
}

/** Request lines (numbers) in stored units; 400 naming each quantity with more than 3 decimals. */
function draftLines(items: CreateOrderInput['items']): DraftLine[] {
  const problems = items.flatMap((l, i) => (hasGramPrecision(l.quantity) ? [] : [{ field: `items.${i}.quantity`, message: 'must have at most 3 decimals' }]));
  if (problems.length) throw new Invalid(problems);
  return items.map((l) => ({ inventoryItemId: l.inventoryItemId, itemName: l.itemName, quantityMilli: milli(l.quantity), unitCostCents: l.unitCost }));
}

const totalOf = (lines: PurchaseOrderLine[]) => lines.reduce((sum, l) => sum + l.subtotalCents, 0);

/** Suppliers and purchase orders (spec 4.8): the orders, their numbers and totals, their status moves and their receipt. */
export function ordersPart(parts: PurchasingParts) {
  const { deps, needs } = parts;

  /** Each line names a live item of the tenant's catalog once (404 for another's or a deleted one). */
  async function checkedLines(tx: TenantTx, lines: DraftLine[]): Promise<PurchaseOrderLine[]> {
    const seen = new Set<string>();
    const out: PurchaseOrderLine[] = [];
    for (const [i, l] of lines.entries()) {
      if (seen.has(l.inventoryItemId)) throw new Invalid(`items.${i}.inventoryItemId`, 'names an item already on the order');
      seen.add(l.inventoryItemId);
      if (!Number.isInteger(l.quantityMilli) || l.quantityMilli < 1) throw new Invalid(`items.${i}.quantity`, 'must be at least 0.001');
      if (!Number.isInteger(l.unitCostCents) || l.unitCostCents < 0) throw new Invalid(`items.${i}.unitCost`, 'must be whole cents, 0 or more');
      const item = await needs.inventory.findStockItem(tx, l.inventoryItemId);
      if (!item) throw new NotFound('Inventory item', `Inventory item ${l.inventoryItemId} (items.${i}.inventoryItemId) not found`);
      out.push({
        inventoryItemId: item._id,
        itemName: l.itemName?.trim() || item.name,
        quantityMilli: l.quantityMilli,
        unitCostCents: l.unitCostCents,
        subtotalCents: costOf(l.quantityMilli, l.unitCostCents),
        receivedMilli: 0,
      });
    }
    return out;
  }

  /** The supplier a new or edited order names, held until commit: 404 when unknown, 409 `supplier_inactive`. */
  async function supplierFor(tx: TenantTx, supplierId: string | null | undefined): Promise<SupplierRow | null> {
    if (supplierId == null) return null;
    const row = await sq.holdSupplier(tx.db, tx.tenantId, supplierId);
    if (!row) throw new NotFound('Supplier');
    if (!row.active) throw new Conflict(`The supplier ${row.name} is inactive`, 'supplier_inactive');
    return row;
  }

  async function viewOf(tx: TenantTx, id: string): Promise<PurchaseOrderView> {
    const found = await q.findOrder(tx.db, tx.tenantId, id);
    if (!found) throw new NotFound('Purchase order');
    return toOrderView(found.order, found.supplier);
  }

  /** A draft with its number PO-YYYYMMDD-NNNN (the tenant's day; NNNN from the day's counter, atomically). */
  const createDraftPurchaseOrder = (t: TenantDb, input: DraftOrderInput): Promise<PurchaseOrderView> =>
    t.run(async (tx) => {
      const supplier = await supplierFor(tx, input.supplierId);
      const lines = await checkedLines(tx, input.items);
      if (!lines.length) throw new Invalid('items', 'must have at least one line');
      const now = deps.clock.now();
      const day = localDate(now, input.timezone ?? DEFAULT_TIMEZONE);
      const n = await q.nextOrderNumber(tx.db, tx.tenantId, day);
      const order = await q.insertOrder(tx.db, {
        tenantId: tx.tenantId,
        id: newId(),
        orderNumber: `PO-${day.replaceAll('-', '')}-${String(n).padStart(4, '0')}`,
        supplierId: supplier?.id ?? null,
        items: lines,
        totalCostCents: totalOf(lines),
        expectedDelivery: input.expectedDelivery ?? null,
        notes: input.notes ?? null,
        status: 'draft',
        suggestionId: input.suggestionId ?? null,
        createdBy: input.userId,
        createdAt: now,
        updatedAt: now,
      });
      return toOrderView(order, supplier);
    });

  return {
    ...suppliersPart(parts),

    createDraftPurchaseOrder,

    /** Orders newest first with their supplier; `status` filters. */
    listPurchaseOrders: (
      t: TenantDb,
      filter: { status?: PurchaseOrderStatus; page?: number; limit?: number },
    ): Promise<{ orders: PurchaseOrderView[]; total: number }> =>
      t.run(async (tx) => {
        const { rows, total } = await q.listOrders(tx.db, tx.tenantId, filter, pageWindow(filter, PURCHASE_ORDERS_PAGE));
        return { orders: rows.map((r) => toOrderView(r.order, r.supplier)), total };
      }),

    getPurchaseOrder: (t: TenantDb, id: string): Promise<PurchaseOrderView> => t.run((tx) => viewOf(tx, id)),

    /** Spec 4.8 POST: a draft; subtotals (half up to the cent) and the total computed here. */
    createPurchaseOrder: (t: TenantDb, caller: OrdersCaller, input: CreateOrderInput): Promise<PurchaseOrderView> =>
      createDraftPurchaseOrder(t, {
        supplierId: input.supplierId,
        items: draftLines(input.items),
        notes: input.notes,
        expectedDelivery: input.expectedDelivery,
        userId: caller.userId,
        timezone: caller.timezone,
      }),

    /**
     * A draft restocking every live, unblocked item with a minimum above 0 and available stock at or below
     * it: quantity max(1, 2 x minimum - available), at the item's cost. Null when nothing is low.
     */
    generateFromLowStock: (t: TenantDb, caller: OrdersCaller, input: GenerateOrderInput): Promise<PurchaseOrderView | null> =>
      t.run(async (tx) => {
        const items = await needs.inventory.listItems(tx, {});
        const low = items.filter((i) => i.status !== 'blocked' && milli(i.minStock) > 0 && milli(i.availableQuantity) <= milli(i.minStock));
        if (!low.length) {
          await supplierFor(tx, input.supplierId);
          return null;
        }
        const lines = low.map((i) => ({
          inventoryItemId: i._id,
          itemName: i.name,
          quantityMilli: Math.max(1000, 2 * milli(i.minStock) - milli(i.availableQuantity)),
          unitCostCents: i.cost,
        }));
        const notes = `Generated from low stock: ${low.length} item(s) at or below their minimum`;
        return createDraftPurchaseOrder(tx, { supplierId: input.supplierId, items: lines, notes, userId: caller.userId, timezone: caller.timezone });
      }),

    /**
     * Edits an order. Items and supplier only in a draft (409 `not_draft`); notes and expected delivery until
     * it is received or cancelled (409 `order_closed`); status along STATUS_MOVES (409 `invalid_transition`,
     * `status_by_receive` for partial and received); sending needs a supplier (409 `supplier_required`).
     */
    updatePurchaseOrder: (t: TenantDb, id: string, input: UpdateOrderInput): Promise<PurchaseOrderView> =>
      t.run(async (tx) => {
        const lines = input.items === undefined ? undefined : draftLines(input.items);
        const current = await q.lockOrder(tx.db, tx.tenantId, id);
        if (!current) throw new NotFound('Purchase order');
        const from = current.status;
        const fields: Partial<PurchaseOrderRow> = { updatedAt: deps.clock.now() };
        if (lines !== undefined || input.supplierId !== undefined) {
          if (from !== 'draft') throw new Conflict(`${current.orderNumber} is ${from}: its items and supplier change only while it is a draft`, 'not_draft');
          if (input.supplierId !== undefined) fields.supplierId = (await supplierFor(tx, input.supplierId))?.id ?? null;
          if (lines !== undefined) {
            fields.items = await checkedLines(tx, lines);
            fields.totalCostCents = totalOf(fields.items);
          }
        }
        if (input.notes !== undefined || input.expectedDelivery !== undefined) {
          if (CLOSED.includes(from)) throw new Conflict(`${current.orderNumber} is ${from}: it cannot change`, 'order_closed');
          if (input.notes !== undefined) fields.notes = input.notes;
          if (input.expectedDelivery !== undefined) fields.expectedDelivery = input.expectedDelivery;
        }
        const to = input.status;
        if (to !== undefined && to !== from) {
          if (to === 'partial' || to === 'received') {
            throw new Conflict(`${current.orderNumber} becomes ${to} only by receiving goods (POST .../receive)`, 'status_by_receive');
          }
          if (!STATUS_MOVES[from].includes(to)) throw new Conflict(`A ${from} purchase order cannot become ${to}`, 'invalid_transition');
          const supplierId = fields.supplierId !== undefined ? fields.supplierId : current.supplierId;
          if (to === 'sent' && supplierId === null) throw new Conflict(`${current.orderNumber} has no supplier to send it to`, 'supplier_required');
          fields.status = to;
        }
        await q.updateOrder(tx.db, tx.tenantId, id, fields);
        return viewOf(tx, id);
      }),

    /** Deletes a draft; 409 `not_draft` for any other (cancel a sent order instead; received goods stay on record). */
    deletePurchaseOrder: (t: TenantDb, id: string): Promise<void> =>
      t.run(async (tx) => {
        const current = await q.lockOrder(tx.db, tx.tenantId, id);
        if (!current) throw new NotFound('Purchase order');
        if (current.status !== 'draft') throw new Conflict(`${current.orderNumber} is ${current.status}: only a draft can be deleted`, 'not_draft');
        await q.deleteOrder(tx.db, tx.tenantId, id);
      }),

    /**
     * Goods arrive (spec 4.8 receive): each line's quantity becomes an entry movement (reason purchase, the
     * line's unit cost, which also becomes the item's cost) through the inventory, in the transaction that
     * updates the order, with the order row locked. Only a sent or partial order (409 `order_not_sent` for a
     * draft, `order_closed` for received or cancelled); an item not on the order 409 `item_not_on_order`;
     * more than remains 409 `over_receipt`. All lines complete: `received`; otherwise `partial`.
     */
    receivePurchaseOrder: (t: TenantDb, caller: OrdersCaller, id: string, input: ReceiveInput): Promise<PurchaseOrderView> =>
      t.run(async (tx) => {
        const problems: { field: string; message: string }[] = [];
        const seen = new Set<string>();
        for (const [i, r] of input.items.entries()) {
          if (!hasGramPrecision(r.receivedQuantity)) problems.push({ field: `items.${i}.receivedQuantity`, message: 'must have at most 3 decimals' });
          if (seen.has(r.inventoryItemId)) problems.push({ field: `items.${i}.inventoryItemId`, message: 'names an item already received in this request' });
          seen.add(r.inventoryItemId);
        }
        if (problems.length) throw new Invalid(problems);
        const order = await q.lockOrder(tx.db, tx.tenantId, id);
        if (!order) throw new NotFound('Purchase order');
        if (order.status === 'draft') throw new Conflict(`${order.orderNumber} is a draft: send it before receiving goods`, 'order_not_sent');
        if (CLOSED.includes(order.status)) throw new Conflict(`${order.orderNumber} is ${order.status}: nothing more can be received`, 'order_closed');
        const lines = order.items.map((l) => ({ ...l }));
        const receipts = input.items.map((r) => {
          const line = lines.find((l) => l.inventoryItemId === r.inventoryItemId);
          if (!line) throw new Conflict(`Item ${r.inventoryItemId} is not on ${order.orderNumber}`, 'item_not_on_order');
          const quantityMilli = milli(r.receivedQuantity);
          const remaining = line.quantityMilli - line.receivedMilli;
          if (quantityMilli > remaining) {
            throw new Conflict(
              `${fromMilli(remaining)} of ${line.itemName} remain to be received on ${order.orderNumber} (asked ${r.receivedQuantity})`,
              'over_receipt',
            );
          }
          line.receivedMilli += quantityMilli;
          return { line, quantityMilli };
        });
        const movementIds: string[] = [];
        for (const { line, quantityMilli } of receipts) {
          const { movement } = await needs.inventory.receiveStock(tx, {
            itemId: line.inventoryItemId,
            quantityMilli,
            unitCostCents: line.unitCostCents,
            setCost: true,
            notes: `${order.orderNumber} received`,
            userId: caller.userId,
          });
          movementIds.push(movement._id);
        }
        const complete = lines.every((l) => l.receivedMilli >= l.quantityMilli);
        await q.updateOrder(tx.db, tx.tenantId, id, { items: lines, status: complete ? 'received' : 'partial', updatedAt: deps.clock.now() });
        await parts.received(tx, { kind: 'purchase_order', id, movementIds });
        return viewOf(tx, id);
      }),
  };
}
