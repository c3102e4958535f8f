import type { ModuleDeps } from '../../platform/module.js';
import type { AuditService } from '../audit/index.js';
import type { BranchesService } from '../branches/index.js';
import type { MenuService } from '../menu/index.js';
import type { OrdersService } from '../orders/index.js';
import type { TenantsService } from '../tenants/index.js';
import { documentsPart } from './documents.service.js';
import { exportsPart } from './exports.service.js';
import { ncmPart } from './ncm.service.js';
import { portalPart } from './portal.service.js';

/** The services of the modules the fiscal module needs (index.ts `needs`). */
export interface FiscalNeeds {
  audit: AuditService;
  tenants: TenantsService;
  orders: OrdersService;
  menu: MenuService;
  branches: BranchesService;
}

/** What every part of the fiscal service is built from. */
export interface FiscalParts {
  deps: ModuleDeps;
  needs: FiscalNeeds;
}

/** Fiscal documents, the NCM table and the accountant portal (spec 4.9), one part per file. */
export function fiscalService(deps: ModuleDeps, needs: FiscalNeeds) {
  const parts: FiscalParts = { deps, needs };
  return { ...documentsPart(parts), ...ncmPart(parts), ...portalPart(parts), ...exportsPart(parts) };
}

export type FiscalService = ReturnType<typeof fiscalService>;
