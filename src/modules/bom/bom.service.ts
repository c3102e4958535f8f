import type { Deps } from '../../platform/deps.js';

/** (being built: issue 15) */
export function bomService(deps: Deps) {
  return { deps };
}

export type BomService = ReturnType<typeof bomService>;
