import type { Deps } from '../../platform/deps.js';

/** (being built: issue 15) */
export function dreService(deps: Deps) {
  return { deps };
}

export type DreService = ReturnType<typeof dreService>;
