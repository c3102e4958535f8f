import { newId } from '../../db/ids.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import type { BranchScope } from '../../platform/auth/guards.js';
import { Conflict, Forbidden, Invalid, NotFound } from '../../platform/domain-errors.js';
import { pageWindow } from '../../platform/pagination.js';
import { fromMilli, hasGramPrecision, milli } from '../../platform/quantity.js';
import * as q from './branch-stock.queries.js';
import { BRANCH_STOCK_PAGE, type AdjustBranchStockInput, type BranchStockView, type TransferBranchStockInput, type UpsertBranchStockInput } from './branch-stock.schemas.js';
import type { InventoryParts } from './inventory.service.js';
import { InsufficientStock, type StockLevel } from './stock.js';

/** Who acts: the tenant handle, the branch scope and the user the movements name (a route's `ctxOf(req)`). */
export interface BranchStockCaller {
  db: TenantDb;
  branchScope: BranchScope;
  user: { id: string };
}

type ItemRef = { id: string; name: string; sku: string; unit: BranchStockView['item']['unit'] };

function toView(rowId: string, item: ItemRef, pdv: { _id: string; name: string }, level: Pick<StockLevel, 'physicalMilli' | 'reservedMilli' | 'minMilli'>): BranchStockView {
  return {
    _id: rowId,
    item: { _id: item.id, name: item.name, sku: item.sku, unit: item.unit },
    pdv: { _id: pdv._id, name: pdv.name },
    physicalQuantity: fromMilli(level.physicalMilli),
    availableQuantity: fromMilli(level.physicalMilli - level.reservedMilli),
    minQuantity: level.minMilli === null ? null : fromMilli(level.minMilli),
  };
}

/** A quantity of the input in thousandths; 400 naming the field when it has more than 3 decimals. */
function thousandths(field: string, value: number): number {
  if (!hasGramPrecision(value)) throw new Invalid(field, 'must have at most 3 decimals');
  return milli(value);
}

/**
 * Stock per PDV (spec 4.8 "Branch stock"): one `branch_stock` row per (item, PDV), every change of its
 * physical quantity through the core (`stock.ts`), so each is a movement and raises or closes the row's
 * low-stock alert. Staff act on their assigned PDVs, branch managers on the PDVs of their branches.
 */
export function branchStockPart({ deps, needs, core }: InventoryParts) {
  /** The PDV (NotFound when unknown or another tenant's), then the caller's scope over it (Forbidden). */
  async function pdvInScope(tx: TenantTx, caller: BranchStockCaller, pdvId: string) {
    const pdv = await needs.branches.findPdv(tx, pdvId);
    if (!pdv || pdv._id !== pdvId) throw new NotFound('PDV');
    if (!caller.branchScope.all) {
      const allowed = await needs.branches.pdvScope(tx, caller.branchScope);
      if (allowed && !allowed.includes(pdvId)) throw new Forbidden('You have no access to this point of sale', 'branch_scope');
    }
    return pdv;
  }

  async function liveItem(tx: TenantTx, itemId: string) {
    const item = await q.findLiveItem(tx.db, tx.tenantId, itemId);
    if (!item) throw new NotFound('Inventory item');
    return item;
  }

  /** The rows within the caller's PDVs, with their item and PDV. */
  /** One page (BRANCH_STOCK_PAGE) by PDV name, item name and id, and the number of matching rows. */
  async function list(
    caller: BranchStockCaller,
    filter: { pdv?: string; item?: string; low?: boolean; page?: number; limit?: number },
  ): Promise<{ rows: BranchStockView[]; total: number }> {
    return caller.db.run(async (tx) => {
      const pdvIds = await needs.branches.pdvScope(tx, caller.branchScope);
      const pdvs = (await needs.branches.listPdvs(tx)).sort((a, b) => a.name.localeCompare(b.name) || a._id.localeCompare(b._id));
      const names = new Map(pdvs.map((p) => [p._id, p.name]));
      const window = pageWindow(filter, BRANCH_STOCK_PAGE);
      const { rows, total } = await q.listRows(
        tx.db,
        tx.tenantId,
        { pdvIds, pdv: filter.pdv, item: filter.item, low: filter.low },
        { ...window, pdvOrder: pdvs.map((p) => p._id) },
      );
      const views = rows.map((r) =>
        toView(r.id, { id: r.itemId, name: r.itemName, sku: r.sku, unit: r.unit }, { _id: r.pdvId, name: names.get(r.pdvId) ?? '' }, r),
      );
      return { rows: views, total };
    });
  }

  return {
    /** GET /branch-stock: the caller's PDVs' rows, of one PDV or one item when asked (both: that pair). */
    listBranchStock: (caller: BranchStockCaller, filter: { pdv?: string; item?: string; page?: number; limit?: number }) => list(caller, filter),

    /** GET /branch-stock/alerts: rows with a minimum set and available stock at or below it. */
    branchStockAlerts: (caller: BranchStockCaller, query: { page?: number; limit?: number } = {}) => list(caller, { ...query, low: true }),

    /**
     * PUT /branch-stock/:pdvId: sets the counted physical stock of an item at a PDV, creating its row
     * when missing (the initial quantity is then a movement too), and its minimum when given.
     */
    async upsertBranchStock(caller: BranchStockCaller, pdvId: string, input: UpsertBranchStockInput): Promise<BranchStockView> {
      const set = thousandths('physicalQuantity', input.physicalQuantity);
      const min = input.minQuantity === undefined || input.minQuantity === null ? input.minQuantity : thousandths('minQuantity', input.minQuantity);
      return caller.db.run(async (tx) => {
        const pdv = await pdvInScope(tx, caller, pdvId);
        const item = await liveItem(tx, input.itemId);
        const now = deps.clock.now();
        const created = await q.createRowIfMissing(tx.db, tx.tenantId, item.id, pdvId, min ?? null, now);
        const row = (await q.findRow(tx.db, tx.tenantId, item.id, pdvId, true))!;
        // The minimum first, so that the change below raises or closes the alert against it.
        if (!created && min !== undefined && min !== row.minMilli) await q.setMinimum(tx.db, tx.tenantId, row.id, min, now);
        const current: StockLevel = {
          itemId: item.id,
          itemName: item.name,
          pdvId,
          physicalMilli: row.physicalMilli,
          reservedMilli: row.reservedMilli,
          minMilli: min === undefined ? row.minMilli : min,
        };
        let level = current;
        if (set !== row.physicalMilli) {
          const notes = created ? 'initial stock at the PDV' : null;
          ({ level } = await core.change(tx, { itemId: item.id, pdvId, type: 'adjustment', reason: 'adjustment', set, notes, userId: caller.user.id }));
        } else {
          await core.recheck(tx, current, item.expirationDate);
        }
        return toView(row.id, item, pdv, level);
      });
    },

    /** POST /branch-stock/:pdvId/adjust: adds `delta` (signed) to an existing row's physical stock. */
    async adjustBranchStock(caller: BranchStockCaller, pdvId: string, input: AdjustBranchStockInput): Promise<BranchStockView> {
      const delta = thousandths('delta', input.delta);
      if (delta === 0) throw new Invalid('delta', 'must not be 0');
      return caller.db.run(async (tx) => {
        const pdv = await pdvInScope(tx, caller, pdvId);
        const item = await liveItem(tx, input.itemId);
        try {
          const { level } = await core.change(tx, { itemId: item.id, pdvId, type: 'adjustment', reason: 'adjustment', delta, userId: caller.user.id });
          const row = (await q.findRow(tx.db, tx.tenantId, item.id, pdvId))!;
          return toView(row.id, item, pdv, level);
        } catch (err) {
          if (err instanceof InsufficientStock) {
            throw new Invalid('delta', `would make the physical quantity negative: ${fromMilli(err.availableMilli)} at the PDV`, { code: 'insufficient_stock' });
          }
          throw err;
        }
      });
    },

    /**
     * POST /branch-stock/transfer: moves `quantity` of an item from one PDV to another in one
     * transaction: both rows locked in the order of their PDV ids, a `transfer` movement on each side
     * with the same transfer id; the target row is created (empty, no minimum) when missing.
     */
    async transferBranchStock(caller: BranchStockCaller, input: TransferBranchStockInput) {
      const quantity = thousandths('quantity', input.quantity);
      if (input.fromPdvId === input.toPdvId) throw new Invalid('toPdvId', 'must be another PDV than fromPdvId');
      return caller.db.run(async (tx) => {
        const from = await pdvInScope(tx, caller, input.fromPdvId);
        const to = await pdvInScope(tx, caller, input.toPdvId);
        const item = await liveItem(tx, input.itemId);
        const notAtSource = () => new NotFound('Branch stock', `${item.name} is not stocked at the source PDV`);
        if (!(await q.findRow(tx.db, tx.tenantId, item.id, from._id))) throw notAtSource();
        // Created before any lock is taken: a concurrent creation of the same row waits here holding nothing.
        await q.createRowIfMissing(tx.db, tx.tenantId, item.id, to._id, null, deps.clock.now());
        const locked = await q.lockRowsInOrder(tx.db, tx.tenantId, item.id, [from._id, to._id]);
        const ids = new Map(locked.map((r) => [r.pdvId, r.id]));
        if (!ids.has(from._id)) throw notAtSource();
        const transferId = newId();
        const common = { itemId: item.id, type: 'transfer', reason: 'transfer', transferId, userId: caller.user.id } as const;
        let out;
        try {
          out = await core.change(tx, { ...common, pdvId: from._id, delta: -quantity });
        } catch (err) {
          if (err instanceof InsufficientStock) {
            throw new Invalid('quantity', `is more than the source PDV holds: ${fromMilli(err.availableMilli)}`, { code: 'insufficient_stock' });
          }
          throw err;
        }
        const into = await core.change(tx, { ...common, pdvId: to._id, delta: quantity });
        return { from: toView(ids.get(from._id)!, item, from, out.level), to: toView(ids.get(to._id)!, item, to, into.level) };
      });
    },

    /**
     * DELETE /branch-stock/:pdvId/items/:itemId: removes an empty row and closes its open alert;
     * Conflict while it holds stock (take it out by an adjustment or a transfer first, so every unit
     * leaving the PDV is a movement with its reason).
     */
    async removeBranchStock(caller: BranchStockCaller, pdvId: string, itemId: string): Promise<{ deleted: true }> {
      return caller.db.run(async (tx) => {
        await pdvInScope(tx, caller, pdvId);
        const row = await q.findRow(tx.db, tx.tenantId, itemId, pdvId, true);
        if (!row) throw new NotFound('Branch stock');
        if (row.physicalMilli > 0 || row.reservedMilli > 0) {
          throw new Conflict(`${fromMilli(row.physicalMilli)} ${row.unit} of ${row.itemName} are still at this PDV: adjust or transfer them out first`, 'branch_stock_not_empty');
        }
        await q.deleteRow(tx.db, tx.tenantId, row.id);
        await core.dropAlerts(tx, itemId, pdvId);
        return { deleted: true };
      });
    },
  };
}
