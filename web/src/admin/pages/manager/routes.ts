/** The manager pages of the panel (see ../../types.ts). */
import type { PanelRoute } from '../../types.js';

export const routes: PanelRoute[] = [];
