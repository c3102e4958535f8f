import type { TenantTx } from '../../db/scopes.js';
import type { Deps } from '../../platform/deps.js';
import type { BranchesService } from '../branches/index.js';
import type { MenuService } from '../menu/index.js';
import type { OrdersService } from '../orders/index.js';
import { branchStockPart } from './branch-stock.service.js';
import { costOfSalesPart } from './cost-of-sales.js';
import { costingPart } from './costing.service.js';
import { entriesPart } from './entries.service.js';
import { itemsPart } from './items.service.js';
import { labelsPart } from './labels.service.js';
import { recipesPart } from './recipes.service.js';
import { stockCore, type StockCore } from './stock.js';

export interface InventoryNeeds {
  menu: MenuService;
  branches: BranchesService;
  orders: OrdersService;
}

/** What every part of the inventory service is built from. */
export interface InventoryParts {
  deps: Deps;
  needs: InventoryNeeds;
  /** The one place where stock changes (stock.ts). */
  core: StockCore;
}

/**
 * The inventory (spec 4.8): the catalog and its movements, recipes and the deduction on sale, alerts,
 * labels and their scan, and stock per PDV. One service made of parts, each in its own file, all changing
 * stock through the core.
 */
export function inventoryService(deps: Deps, needs: InventoryNeeds) {
  const core = stockCore({
    clock: deps.clock,
    realtime: deps.realtime,
    pdvName: async (tx: TenantTx, pdvId: string) => (await needs.branches.findPdv(tx, pdvId))?.name ?? null,
  });
  const parts: InventoryParts = { deps, needs, core };
  return {
    ...itemsPart(parts),
    ...recipesPart(parts),
    ...labelsPart(parts),
    ...branchStockPart(parts),
    ...entriesPart(parts),
    ...costingPart(parts),
    ...costOfSalesPart(),
  };
}

export type InventoryService = ReturnType<typeof inventoryService>;
