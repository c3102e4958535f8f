import type { Deps } from '../../platform/deps.js';
import type { InventoryService } from '../inventory/index.js';
import type { OrdersService } from '../orders/index.js';
import type { PurchasingService } from '../purchasing/index.js';
import type { TenantsService } from '../tenants/index.js';
import { categoriesPart } from './categories.service.js';
import { costCentersPart } from './cost-centers.service.js';
import { expensesPart } from './expenses.service.js';
import { statementPart } from './statement.service.js';

export type { ExpenseChange, ExpenseListener } from './expenses.service.js';

/** The services the DRE reads: paid orders (revenue), stock movements (CMV), imported invoices (CMV), the tenant's regime. */
export interface DreNeeds {
  orders: OrdersService;
  inventory: InventoryService;
  purchasing: PurchasingService;
  tenants: TenantsService;
}

/** What every part of the DRE service is built from. */
export interface DreParts {
  deps: Deps;
  needs: DreNeeds;
}

/**
 * The income statement (spec 4.12): expense categories, cost centers, operating expenses and the DRE of a
 * month. One service made of parts, each in its own file.
 */
export function dreService(deps: Deps, needs: DreNeeds) {
  const parts: DreParts = { deps, needs };
  return { ...categoriesPart(parts), ...costCentersPart(parts), ...expensesPart(parts), ...statementPart(parts) };
}

export type DreService = ReturnType<typeof dreService>;
