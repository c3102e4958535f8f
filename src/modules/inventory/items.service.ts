import { newId } from '../../db/ids.js';
import type { InventoryItemRow, MovementReason, MovementType, StockAlertRow } from '../../db/schema/inventory.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import type { BranchScope } from '../../platform/auth/guards.js';
import { Conflict, Forbidden, Invalid, isUniqueViolation, NotFound } from '../../platform/domain-errors.js';
import { pageWindow } from '../../platform/pagination.js';
import type { ClaimKey } from '../../platform/idempotency.js';
import { fromMilli, hasGramPrecision, milli } from '../../platform/quantity.js';
import { addDays, localDate } from '../../platform/time.js';
import type { InventoryParts } from './inventory.service.js';
import * as q from './items.queries.js';
import {
  ITEMS_PAGE,
  type CreateItemInput,
  type ExpirationAlertsView,
  type ExpiringItemView,
  type InventoryItemView,
  type InventoryStatsView,
  type ListItemsInput,
  type ListMovementsInput,
  type MovementInput,
  type MovementPageView,
  type StockAlertView,
  type UpdateItemInput,
} from './items.schemas.js';
import { toMovementView, type StockLevel } from './stock.js';
import { validEan } from './units.js';

/** Who acts: the user (movements, readers of alerts) and the PDVs they may see. */
export interface InventoryCaller {
  userId: string;
  branchScope: BranchScope;
}

/**
 * Which reasons each movement type takes (docs/decisions.md, "Inventory: items, movements and alerts").
 * A reservation holds stock for a sale or a production and releases it with `return`.
 */
export const MOVEMENT_PAIRS: Record<Exclude<MovementType, 'transfer'>, readonly MovementReason[]> = {
  entry: ['purchase', 'production', 'return', 'adjustment'],
  exit: ['sale', 'loss', 'theft', 'expiration', 'production', 'adjustment'],
  adjustment: ['adjustment'],
  reservation: ['sale', 'production', 'return'],
};

/** The catalog vocabulary of an item, with the stock views' extra fields. */
export function toItemView(row: InventoryItemRow): InventoryItemView {
  return {
    _id: row.id,
    name: row.name,
    sku: row.sku,
    ean: row.ean,
    unit: row.unit,
    packSize: row.packSize === null ? null : fromMilli(row.packSize),
    currentStock: fromMilli(row.physicalMilli),
    reservedQuantity: fromMilli(row.reservedMilli),
    availableQuantity: fromMilli(row.physicalMilli - row.reservedMilli),
    minStock: fromMilli(row.minMilli),
    cost: row.costCents,
    expirationDate: row.expirationDate,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function toAlertView(a: StockAlertRow): StockAlertView {
  return {
    _id: a.id,
    item: a.itemId,
    itemName: a.itemName,
    availableQuantity: fromMilli(a.availableMilli),
    minQuantity: fromMilli(a.minMilli),
    pdv: a.pdvId,
    pdvName: a.pdvName,
    expiresAt: a.expiresAt?.toISOString() ?? null,
    createdAt: a.createdAt.toISOString(),
    readBy: a.readBy,
  };
}

const toExpiringView = (row: InventoryItemRow): ExpiringItemView => ({
  _id: row.id,
  name: row.name,
  sku: row.sku,
  expirationDate: row.expirationDate!,
  availableQuantity: fromMilli(row.physicalMilli - row.reservedMilli),
  unit: row.unit,
});

const levelOf = (row: InventoryItemRow): StockLevel => ({
  itemId: row.id,
  itemName: row.name,
  pdvId: null,
  physicalMilli: row.physicalMilli,
  reservedMilli: row.reservedMilli,
  minMilli: row.minMilli,
});

/** 400 naming every quantity field with more than 3 decimals, and every EAN whose check digit is wrong. */
function checkFields(input: { ean?: string | null; [field: string]: unknown }, quantityFields: string[]) {
  const problems: { field: string; message: string }[] = [];
  for (const field of quantityFields) {
    const value = input[field];
    if (typeof value === 'number' && !hasGramPrecision(value)) problems.push({ field, message: 'must have at most 3 decimals' });
  }
  if (typeof input.ean === 'string' && !validEan(input.ean)) {
    problems.push({ field: 'ean', message: 'is not a valid EAN-8, UPC-A, EAN-13 or GTIN-14 code (check digit)' });
  }
  if (problems.length) throw new Invalid(problems);
}

/** The unique violation of an item's SKU or EAN as its 409. */
function catalogConflict(err: unknown, input: { sku?: string; ean?: string | null }): unknown {
  if (isUniqueViolation(err, q.SKU_KEY)) return new Conflict(`Another item has the SKU ${input.sku}`, 'sku_taken');
  if (isUniqueViolation(err, q.EAN_KEY)) return new Conflict(`Another item has the EAN ${input.ean}`, 'ean_taken');
  return err;
}

/** The catalog (spec 4.8 "/inventory"), its movements, statistics, expiration and low-stock alerts. */
export function itemsPart({ deps, needs, core }: InventoryParts) {
  /** PDVs the caller may see (null: all). */
  const pdvsOf = (tx: TenantTx, scope: BranchScope) => needs.branches.pdvScope(tx, scope);

  return {
    /** Live items by name; `status` and `ean` filter. */
    listItems: (t: TenantDb, filter: Omit<ListItemsInput, 'page' | 'limit'>): Promise<InventoryItemView[]> =>
      t.run(async (tx) => (await q.listItems(tx.db, tx.tenantId, filter)).map(toItemView)),

    /** One page of the catalog (`page`, `limit`: ITEMS_PAGE) and the number of matching items. */
    listItemsPage: (t: TenantDb, filter: ListItemsInput): Promise<{ items: InventoryItemView[]; total: number }> =>
      t.run(async (tx) => {
        const { rows, total } = await q.listItemsPage(tx.db, tx.tenantId, filter, pageWindow(filter, ITEMS_PAGE));
        return { items: rows.map(toItemView), total };
      }),

    /**
     * Creates an item. An opening `currentStock` above 0 is an `entry` movement (reason `adjustment`,
     * unit cost the item's cost) through the core; the low-stock alert is checked either way.
     */
    createItem: (t: TenantDb, caller: InventoryCaller, input: CreateItemInput): Promise<InventoryItemView> =>
      t.run(async (tx) => {
        checkFields(input, ['currentStock', 'minStock', 'packSize']);
        const now = deps.clock.now();
        let row: InventoryItemRow;
        try {
          row = await q.insertItem(tx.db, {
            tenantId: tx.tenantId,
            id: newId(),
            name: input.name,
            sku: input.sku,
            ean: input.ean ?? null,
            unit: input.unit,
            packSize: input.packSize == null ? null : milli(input.packSize),
            physicalMilli: 0,
            minMilli: milli(input.minStock),
            costCents: input.cost,
            expirationDate: input.expirationDate ?? null,
            status: input.status ?? 'active',
            createdAt: now,
            updatedAt: now,
          });
        } catch (err) {
          throw catalogConflict(err, input);
        }
        const opening = milli(input.currentStock);
        if (opening > 0) {
          await core.change(tx, {
            itemId: row.id,
            pdvId: null,
            type: 'entry',
            reason: 'adjustment',
            delta: opening,
            unitCostCents: input.cost,
            notes: 'opening stock',
            userId: caller.userId,
          });
        } else {
          await core.recheck(tx, levelOf(row), row.expirationDate);
        }
        return toItemView((await q.findItem(tx.db, tx.tenantId, row.id))!);
      }),

    /**
     * Changes an item's fields. Stock is not a field (400: post a movement); the unit changes only while
     * nothing is counted in it (409 `unit_in_use`); packSize cannot be cleared while a recipe counts the
     * item in boxes (409 `pack_size_in_use`); a new minimum rechecks the low-stock alert.
     */
    updateItem: (t: TenantDb, id: string, input: UpdateItemInput): Promise<InventoryItemView> =>
      t.run(async (tx) => {
        if (input.currentStock !== undefined) {
          throw new Invalid('currentStock', 'is not editable: stock changes only by movements (POST /inventory/:id/movements, an adjustment sets a count)');
        }
        checkFields(input, ['minStock', 'packSize']);
        const current = await q.lockItem(tx.db, tx.tenantId, id);
        if (!current) throw new NotFound('Inventory item');
        const unitChanges = input.unit !== undefined && input.unit !== current.unit;
        const packCleared = input.packSize === null && current.packSize !== null;
        if (unitChanges || packCleared) {
          const uses = await q.itemUses(tx.db, tx.tenantId, id);
          const counted = current.physicalMilli !== 0 || current.reservedMilli !== 0 || uses.recipes + uses.branchRows + uses.pendingLabels > 0;
          if (unitChanges && counted) {
            throw new Conflict(`${current.name} is counted in ${current.unit} (stock, recipes, PDV rows or labels): its unit cannot change`, 'unit_in_use');
          }
          if (packCleared && uses.boxRecipes > 0) {
            throw new Conflict(`${uses.boxRecipes} recipe line(s) count ${current.name} in boxes: its pack size cannot be removed`, 'pack_size_in_use');
          }
        }
        const fields: Partial<InventoryItemRow> = { updatedAt: deps.clock.now() };
        if (input.name !== undefined) fields.name = input.name;
        if (input.sku !== undefined) fields.sku = input.sku;
        if (input.ean !== undefined) fields.ean = input.ean;
        if (input.unit !== undefined) fields.unit = input.unit;
        if (input.packSize !== undefined) fields.packSize = input.packSize === null ? null : milli(input.packSize);
        if (input.minStock !== undefined) fields.minMilli = milli(input.minStock);
        if (input.cost !== undefined) fields.costCents = input.cost;
        if (input.expirationDate !== undefined) fields.expirationDate = input.expirationDate;
        if (input.status !== undefined) fields.status = input.status;
        let row: InventoryItemRow;
        try {
          row = (await q.updateItem(tx.db, tx.tenantId, id, fields))!;
        } catch (err) {
          throw catalogConflict(err, input);
        }
        if (row.name !== current.name) await q.renameOpenAlerts(tx.db, tx.tenantId, id, row.name);
        if (row.minMilli !== current.minMilli) await core.recheck(tx, levelOf(row), row.expirationDate);
        // The menu item details show their recipes with this item's name, SKU and unit: they are cached under the menu version.
        const shown = (['name', 'sku', 'unit'] as const).some((k) => row[k] !== current[k]);
        if (shown && (await q.itemUses(tx.db, tx.tenantId, id)).recipes > 0) await needs.menu.touch(tx);
        return toItemView(row);
      }),

    /**
     * Soft-deletes an item (its movements keep naming it; its SKU and EAN are free again). 409
     * `item_in_use` while recipe lines, PDV rows or unscanned labels name it; its open catalog alert closes.
     */
    deleteItem: (t: TenantDb, id: string): Promise<void> =>
      t.run(async (tx) => {
        const current = await q.lockItem(tx.db, tx.tenantId, id);
        if (!current) throw new NotFound('Inventory item');
        const uses = await q.itemUses(tx.db, tx.tenantId, id);
        const named = [
          uses.recipes && `${uses.recipes} recipe line(s)`,
          uses.branchRows && `${uses.branchRows} PDV stock row(s)`,
          uses.pendingLabels && `${uses.pendingLabels} unscanned label(s)`,
        ].filter(Boolean);
        if (named.length) throw new Conflict(`${current.name} is still used by ${named.join(', ')}: remove them first`, 'item_in_use');
        const now = deps.clock.now();
        await q.updateItem(tx.db, tx.tenantId, id, { deletedAt: now, updatedAt: now });
        await core.dropAlerts(tx, id, null);
      }),

    /**
     * A movement of the catalog stock (spec 4.8 `POST /inventory/:id/movements`): entry adds, exit takes
     * (never the reserved stock; 409 `insufficient_stock`), adjustment sets the counted stock, reservation
     * holds (sale, production) or releases (return) stock; transfer is the branch-stock route's.
     */
    addMovement: (t: TenantDb, caller: InventoryCaller, itemId: string, input: MovementInput, claimKey?: ClaimKey) =>
      t.run(async (tx) => {
        if (input.type === 'transfer') throw new Invalid('type', 'transfers move stock between PDVs: use POST /branch-stock/transfer');
        const allowed = MOVEMENT_PAIRS[input.type];
        const problems: { field: string; message: string }[] = [];
        if (!allowed.includes(input.reason)) problems.push({ field: 'reason', message: `must be one of ${allowed.join(', ')} for a ${input.type}` });
        if (!hasGramPrecision(input.quantity)) problems.push({ field: 'quantity', message: 'must have at most 3 decimals' });
        else if (input.type !== 'adjustment' && milli(input.quantity) < 1) problems.push({ field: 'quantity', message: 'must be at least 0.001' });
        if (input.unitCost != null && input.type !== 'entry') problems.push({ field: 'unitCost', message: 'is for entries only' });
        if (problems.length) throw new Invalid(problems);
        const quantity = milli(input.quantity);
        const common = { itemId, pdvId: null, notes: input.notes ?? null, userId: caller.userId };
        if (input.type === 'reservation') {
          const delta = input.reason === 'return' ? -quantity : quantity;
          const { movement } = await core.reserve(tx, { ...common, reason: input.reason, delta });
          await claimKey?.(tx.db, movement.id, 201);
          return toMovementView(movement);
        }
        const { movement } = await core.change(tx, {
          ...common,
          type: input.type,
          reason: input.reason,
          ...(input.type === 'adjustment' ? { set: quantity } : { delta: input.type === 'entry' ? quantity : -quantity }),
          unitCostCents: input.unitCost ?? null,
          keepReserved: true,
        });
        await claimKey?.(tx.db, movement.id, 201);
        return toMovementView(movement);
      }),

    /** Movement `id` of an item (an idempotent retry whose first answer was lost). */
    movement: (t: TenantDb, itemId: string, id: string) =>
      t.run(async (tx) => {
        const row = await q.findMovement(tx.db, tx.tenantId, itemId, id);
        if (!row) throw new NotFound('Movement');
        return toMovementView(row);
      }),

    /** The item's movements, newest first, a page at a time; a branch-scoped caller sees the catalog's and their PDVs'. */
    listMovements: (t: TenantDb, caller: InventoryCaller, itemId: string, input: ListMovementsInput): Promise<MovementPageView> =>
      t.run(async (tx) => {
        if (!(await q.findItem(tx.db, tx.tenantId, itemId))) throw new NotFound('Inventory item');
        const page = input.page ?? 1;
        const limit = input.limit ?? 20;
        const pdvIds = await pdvsOf(tx, caller.branchScope);
        const { rows, total } = await q.listMovements(tx.db, tx.tenantId, itemId, pdvIds, { offset: (page - 1) * limit, limit });
        return { data: rows.map(toMovementView), total, page, totalPages: Math.ceil(total / limit) };
      }),

    /** Spec 4.8 `GET /inventory/stats` over the live catalog. */
    inventoryStats: (t: TenantDb): Promise<InventoryStatsView> => t.run((tx) => q.stats(tx.db, tx.tenantId)),

    /**
     * Items with stock by expiration date, in the tenant's time zone: expired (before today), expiring in
     * 7 (today to today + 7) and in 30 (today + 8 to today + 30); each item in one list, soonest first.
     */
    expirationAlerts: (t: TenantDb, timezone: string): Promise<ExpirationAlertsView> =>
      t.run(async (tx) => {
        const today = localDate(deps.clock.now(), timezone);
        const in7 = addDays(today, 7);
        const rows = await q.expiringItems(tx.db, tx.tenantId, addDays(today, 30));
        const view: ExpirationAlertsView = { expiredItems: [], expiringIn7: [], expiringIn30: [] };
        for (const row of rows) {
          const date = row.expirationDate!;
          (date < today ? view.expiredItems : date <= in7 ? view.expiringIn7 : view.expiringIn30).push(toExpiringView(row));
        }
        return view;
      }),

    /** Open low-stock alerts the caller has not read (catalog, and the PDVs they may see), newest first, 50 at most. */
    listStockAlerts: (t: TenantDb, caller: InventoryCaller): Promise<StockAlertView[]> =>
      t.run(async (tx) => (await q.unreadAlerts(tx.db, tx.tenantId, caller.userId, await pdvsOf(tx, caller.branchScope), 50)).map(toAlertView)),

    /** How many alerts `listStockAlerts` has (not capped at 50). */
    countStockAlerts: (t: TenantDb, caller: InventoryCaller): Promise<{ count: number }> =>
      t.run(async (tx) => ({ count: await q.countUnreadAlerts(tx.db, tx.tenantId, caller.userId, await pdvsOf(tx, caller.branchScope)) })),

    /** Marks an alert read by the caller (once, whatever the number of calls); 403 for a PDV outside their scope. */
    readStockAlert: (t: TenantDb, caller: InventoryCaller, id: string): Promise<StockAlertView> =>
      t.run(async (tx) => {
        const alert = await q.findAlert(tx.db, tx.tenantId, id);
        if (!alert) throw new NotFound('Stock alert');
        if (alert.pdvId !== null) {
          const pdvIds = await pdvsOf(tx, caller.branchScope);
          if (pdvIds !== null && !pdvIds.includes(alert.pdvId)) throw new Forbidden('You have no access to this PDV', 'branch_scope');
        }
        return toAlertView((await q.markAlertRead(tx.db, tx.tenantId, id, caller.userId))!);
      }),
  };
}
