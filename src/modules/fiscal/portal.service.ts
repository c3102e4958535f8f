import type { FiscalParts } from './fiscal.service.js';

/** (being built: issue 16) */
export function portalPart(_parts: FiscalParts) {
  return {};
}
