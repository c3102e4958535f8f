import { cashMovements, shifts } from '../../db/schema/shifts.js';
import { defineModule } from '../../platform/module.js';
import { branchesModule } from '../branches/index.js';
import { usersModule } from '../users/index.js';
import { shiftsRoutes } from './shifts.routes.js';
import { shiftsService } from './shifts.service.js';

export type { ShiftsService, ShiftTotalsSource } from './shifts.service.js';

/**
 * Cashier shifts (spec 2 "Shift", 4.10): opening with a float, cash movements, the close against what the
 * shift's payments (told by the payments module through `onTotals`) and movements say is due.
 */
export const shiftsModule = defineModule({
  name: 'shifts',
  needs: [branchesModule, usersModule],
  tables: [shifts, cashMovements],
  services: (deps, { branches, users }) => ({ shifts: shiftsService(deps, { branches, users }) }),
  routes: (app, services) => shiftsRoutes(app, services),
});
