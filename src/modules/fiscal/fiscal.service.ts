import type { ModuleDeps } from '../../platform/module.js';
import { documentsPart } from './documents.service.js';
import { exportsPart } from './exports.service.js';
import { ncmPart } from './ncm.service.js';
import { portalPart } from './portal.service.js';

/** What every part of the fiscal service is built from. */
export interface FiscalParts {
  deps: ModuleDeps;
}

/** Fiscal documents, the NCM table and the accountant portal (spec 4.9), one part per file. */
export function fiscalService(deps: ModuleDeps) {
  const parts: FiscalParts = { deps };
  return { ...documentsPart(parts), ...ncmPart(parts), ...portalPart(parts), ...exportsPart(parts) };
}

export type FiscalService = ReturnType<typeof fiscalService>;
