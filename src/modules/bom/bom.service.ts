import { newId } from '../../db/ids.js';
import type { BomIndirectCostRow, BomSnapshotRow, IndirectUnitType, SnapshotTrigger } from '../../db/schema/bom.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import type { Deps } from '../../platform/deps.js';
import { Conflict, Invalid, NotFound } from '../../platform/domain-errors.js';
import { pageWindow, slicePage } from '../../platform/pagination.js';
import type { InventoryService, RecipeCostLine } from '../inventory/index.js';
import type { MenuService } from '../menu/index.js';
import type { PurchasingService } from '../purchasing/index.js';
import { costSheet, ingredientLine, type CostSheet, marginPercent, millionths, suggestedPrice, valuePerUnitOf, type CostLineInput } from './bom.calc.js';
import * as q from './bom.queries.js';
import {
  BOM_LIST_PAGE,
  HISTORY_DEFAULT,
  MAX_FIXED_CENTS,
  MAX_FRACTION,
  type BomCostSnapshotView,
  type BomDetailView,
  type BomIndirectCostView,
  type BomListEntryView,
  type CalculateInput,
  type CreateIndirectInput,
  type IndirectLineView,
  type IngredientLineView,
  type UpdateIndirectInput,
} from './bom.schemas.js';

export interface BomNeeds {
  menu: MenuService;
  inventory: InventoryService;
  purchasing: PurchasingService;
}

export function toIndirectView(r: BomIndirectCostRow): BomIndirectCostView {
  return {
    _id: r.id,
    menuItem: r.menuItemId,
    type: r.type,
    label: r.label,
    valuePerUnit: valuePerUnitOf(r),
    unitType: r.unitType,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export function toSnapshotView(r: BomSnapshotRow): BomCostSnapshotView {
  return {
    _id: r.id,
    menuItem: r.menuItemId,
    sellingPrice: r.sellingPriceCents,
    totalDirectCost: r.directCents,
    totalIndirectCost: r.indirectCents,
    totalCostPerUnit: r.totalCents,
    marginPercent: marginPercent(r.sellingPriceCents, r.totalCents),
    targetMargin: r.targetMargin === null ? null : r.targetMargin / 1e6,
    suggestedSellingPrice: r.suggestedPriceCents,
    triggeredBy: r.triggeredBy,
    ingredientSnapshot: r.lines as unknown as IngredientLineView[],
    indirectSnapshot: r.indirect as unknown as IndirectLineView[],
    createdBy: r.createdBy,
    createdAt: r.createdAt.toISOString(),
  };
}

/** `valuePerUnit` as stored for its unit type (cents, or millionths of the direct cost); 400 on `valuePerUnit` when it does not fit. */
function storedValue(unitType: IndirectUnitType, valuePerUnit: number): number {
  if (unitType === 'fixed') {
    if (!Number.isInteger(valuePerUnit)) throw new Invalid('valuePerUnit', 'a fixed cost is integer cents per unit');
    if (valuePerUnit > MAX_FIXED_CENTS) throw new Invalid('valuePerUnit', `a fixed cost is at most ${MAX_FIXED_CENTS} cents`);
    return valuePerUnit;
  }
  if (valuePerUnit > MAX_FRACTION) {
    throw new Invalid('valuePerUnit', `a percentage_of_direct is a fraction from 0 to ${MAX_FRACTION} (0.15 = 15%)`);
  }
  const m = millionths(valuePerUnit);
  if (m === null) throw new Invalid('valuePerUnit', 'a percentage_of_direct has at most 6 decimals');
  return m;
}

/** Ingredient lines by name as people read them (accents in place: Óleo before Sal), then id. */
const collator = new Intl.Collator('pt-BR', { sensitivity: 'base' });
const byName = (lines: RecipeCostLine[]) =>
  lines.sort((a, b) => collator.compare(a.inventoryItemName, b.inventoryItemName) || (a.inventoryItemId < b.inventoryItemId ? -1 : 1));

const byMenuItem = <T extends { menuItemId: string }>(rows: T[]) => {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const list = out.get(r.menuItemId);
    if (list) list.push(r);
    else out.set(r.menuItemId, [r]);
  }
  return out;
};

/**
 * Cost sheets (spec 4.13): a dish's recipe at its ingredients' current costs plus its indirect costs,
 * stored as snapshots on demand (`calculate`) and when an imported supplier invoice changes an
 * ingredient's cost (`nfe_import`, in the import's transaction).
 */
const sheetOf = (lines: CostLineInput[], indirect: BomIndirectCostRow[]) =>
  costSheet(lines, indirect.map((c) => ({ id: c.id, type: c.type, label: c.label, unitType: c.unitType, value: c.value })));

export function bomService(deps: Deps, { menu, inventory, purchasing }: BomNeeds) {
  /** Writes one snapshot of a dish's cost sheet. */
  function takeSnapshot(
    tx: TenantTx,
    dish: { id: string; price: number },
    sheet: CostSheet,
    opts: { trigger: SnapshotTrigger; targetMargin: number | null; userId: string | null },
  ) {
    return q.insertSnapshot(tx.db, {
      tenantId: tx.tenantId,
      id: newId(),
      menuItemId: dish.id,
      directCents: sheet.directCents,
      indirectCents: sheet.indirectCents,
      totalCents: sheet.totalCents,
      sellingPriceCents: dish.price,
      targetMargin: opts.targetMargin,
      suggestedPriceCents: opts.targetMargin === null ? null : suggestedPrice(sheet.totalCents, opts.targetMargin),
      triggeredBy: opts.trigger,
      lines: sheet.lines,
      indirect: sheet.indirect,
      createdBy: opts.userId,
      createdAt: deps.clock.now(),
    });
  }

  // An imported invoice that changed ingredients' costs: a snapshot of every live dish using one of them whose
  // cost differs from its latest snapshot (or that has none), keeping that snapshot's target margin.
  purchasing.onItemCostsChanged(async (tx, { itemIds, userId }) => {
    const used = await inventory.menuItemsUsing(tx, itemIds);
    if (!used.length) return;
    const live = await menu.itemsForOrder(tx, used);
    const dishes = used.filter((id) => live.has(id));
    if (!dishes.length) return;
    const lines = byMenuItem(byName(await inventory.recipeCostLines(tx, dishes)));
    const indirect = byMenuItem(await q.indirectOf(tx.db, tx.tenantId, dishes));
    const latest = await q.latestOf(tx.db, tx.tenantId, dishes);
    for (const id of dishes) {
      const prev = latest.get(id);
      const sheet = sheetOf(lines.get(id) ?? [], indirect.get(id) ?? []);
      if (prev && prev.directCents === sheet.directCents && prev.indirectCents === sheet.indirectCents) continue;
      await takeSnapshot(tx, { id, price: live.get(id)!.price }, sheet, {
        trigger: 'nfe_import',
        targetMargin: prev?.targetMargin ?? null,
        userId,
      });
    }
  });

  return {
    /**
     * A page (BOM_LIST_PAGE) of the live menu items (menu order) with their latest snapshot and margin at the current
     * price, and the number of items. The page is cut after the menu's own sort; costs are read for its items only.
     */
    list: (t: TenantDb, query: { page?: number; limit?: number } = {}): Promise<{ entries: BomListEntryView[]; total: number }> =>
      t.run(async (tx) => {
        const { rows: items, total } = slicePage(await menu.listItems(tx), pageWindow(query, BOM_LIST_PAGE));
        const ids = items.map((i) => i._id);
        const withRecipe = new Set((await inventory.recipeCostLines(tx, ids)).map((l) => l.menuItemId));
        const latest = await q.latestOf(tx.db, tx.tenantId, ids);
        const entries = items.map((i): BomListEntryView => {
          const s = latest.get(i._id);
          return {
            menuItemId: i._id,
            name: i.name,
            sellingPrice: i.price,
            hasRecipe: withRecipe.has(i._id),
            latestSnapshot: s
              ? {
                  totalDirectCost: s.directCents,
                  totalIndirectCost: s.indirectCents,
                  totalCostPerUnit: s.totalCents,
                  triggeredBy: s.triggeredBy,
                  createdAt: s.createdAt.toISOString(),
                }
              : null,
            marginPercent: s ? marginPercent(i.price, s.totalCents) : null,
          };
        });
        return { entries, total };
      }),

    /** A dish's cost sheet now: its recipe at current costs, its indirect costs, its latest snapshot. 404: not a live menu item of the tenant. */
    detail: (t: TenantDb, menuItemId: string): Promise<BomDetailView> =>
      t.run(async (tx) => {
        const item = await menu.getItem(tx, menuItemId);
        const lines = byName(await inventory.recipeCostLines(tx, [menuItemId]));
        const indirect = await q.indirectOf(tx.db, tx.tenantId, [menuItemId]);
        const latest = (await q.latestOf(tx.db, tx.tenantId, [menuItemId])).get(menuItemId);
        return {
          menuItem: { _id: item._id, name: item.name, price: item.price },
          ingredients: lines.map(ingredientLine),
          indirectCosts: indirect.map(toIndirectView),
          latestSnapshot: latest ? toSnapshotView(latest) : null,
        };
      }),

    /** Stores a `manual` snapshot (with a suggested price when a target margin is given). 404 unknown dish; 409 `no_recipe`. */
    calculate: (t: TenantDb, caller: { userId: string }, menuItemId: string, input: CalculateInput = {}): Promise<BomCostSnapshotView> => {
      let margin: number | null = null;
      if (input.targetMargin !== undefined) {
        margin = millionths(input.targetMargin);
        if (margin === null) throw new Invalid('targetMargin', 'has at most 6 decimals');
      }
      return t.run(async (tx) => {
        const item = await menu.getItem(tx, menuItemId);
        const lines = byName(await inventory.recipeCostLines(tx, [menuItemId]));
        if (!lines.length) throw new Conflict(`${item.name} has no recipe: add its ingredients (/inventory/ingredients) first`, 'no_recipe');
        const indirect = await q.indirectOf(tx.db, tx.tenantId, [menuItemId]);
        const row = await takeSnapshot(tx, { id: item._id, price: item.price }, sheetOf(lines, indirect), {
          trigger: 'manual',
          targetMargin: margin,
          userId: caller.userId,
        });
        return toSnapshotView(row);
      });
    },

    /** A dish's snapshots, newest first. 404: not a live menu item of the tenant. */
    history: (t: TenantDb, menuItemId: string, limit = HISTORY_DEFAULT): Promise<BomCostSnapshotView[]> =>
      t.run(async (tx) => {
        await menu.getItem(tx, menuItemId);
        return (await q.history(tx.db, tx.tenantId, menuItemId, limit)).map(toSnapshotView);
      }),

    /** Adds an indirect cost to a dish. 404: the menu item is not the tenant's; 400: the value does not fit its unit type. */
    createIndirect: (t: TenantDb, input: CreateIndirectInput): Promise<BomIndirectCostView> => {
      const value = storedValue(input.unitType, input.valuePerUnit);
      return t.run(async (tx) => {
        await menu.getItem(tx, input.menuItemId);
        const now = deps.clock.now();
        const row = await q.insertIndirect(tx.db, {
          tenantId: tx.tenantId,
          id: newId(),
          menuItemId: input.menuItemId,
          type: input.type,
          label: input.label.trim(),
          unitType: input.unitType,
          value,
          createdAt: now,
          updatedAt: now,
        });
        return toIndirectView(row);
      });
    },

    /** Changes some fields of an indirect cost; the value is checked again against the (new) unit type. */
    updateIndirect: (t: TenantDb, id: string, input: UpdateIndirectInput): Promise<BomIndirectCostView> =>
      t.run(async (tx) => {
        const current = await q.findIndirect(tx.db, tx.tenantId, id, { lock: true });
        if (!current) throw new NotFound('Indirect cost');
        const unitType = input.unitType ?? current.unitType;
        if (unitType !== current.unitType && input.valuePerUnit === undefined) {
          throw new Invalid('valuePerUnit', `is required when unitType changes (${current.unitType} to ${unitType}: the value means another thing)`);
        }
        const value = storedValue(unitType, input.valuePerUnit ?? valuePerUnitOf(current));
        const row = await q.updateIndirect(tx.db, tx.tenantId, id, {
          ...(input.type !== undefined ? { type: input.type } : {}),
          ...(input.label !== undefined ? { label: input.label.trim() } : {}),
          unitType,
          value,
          updatedAt: deps.clock.now(),
        });
        return toIndirectView(row!);
      }),

    deleteIndirect: (t: TenantDb, id: string): Promise<{ deleted: true }> =>
      t.run(async (tx) => {
        if (!(await q.deleteIndirect(tx.db, tx.tenantId, id))) throw new NotFound('Indirect cost');
        return { deleted: true };
      }),
  };
}

export type BomService = ReturnType<typeof bomService>;
