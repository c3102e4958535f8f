import type { Deps } from '../../platform/deps.js';
import type { BranchesService } from '../branches/index.js';
import type { InventoryService } from '../inventory/index.js';
import type { MenuService } from '../menu/index.js';
import type { TenantsService } from '../tenants/index.js';
import { invoicesPart } from './invoices.service.js';
import { ordersPart } from './orders.service.js';
import { predictionsPart } from './predictions.service.js';

export interface PurchasingNeeds {
  inventory: InventoryService;
  menu: MenuService;
  branches: BranchesService;
  tenants: TenantsService;
}

/** What every part of the purchasing service is built from. */
export interface PurchasingParts {
  deps: Deps;
  needs: PurchasingNeeds;
}

/**
 * Purchasing (spec 4.8 suppliers, purchase orders, predictions, import-nfs): one service made of parts,
 * each in its own file. Goods received change stock only through `inventory.receiveStock`.
 */
export function purchasingService(deps: Deps, needs: PurchasingNeeds) {
  const parts: PurchasingParts = { deps, needs };
  const orders = ordersPart(parts);
  return { ...orders, ...invoicesPart(parts, orders), ...predictionsPart(parts, orders) };
}

export type PurchasingService = ReturnType<typeof purchasingService>;
export type PurchaseOrdersPart = ReturnType<typeof ordersPart>;
