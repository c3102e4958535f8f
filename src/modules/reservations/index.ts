import { reservations } from '../../db/schema/tables.js';
import { defineModule } from '../../platform/module.js';
import { seedDemoReservations } from './reservations.demo.js';
import { reservationsRoutes } from './reservations.routes.js';
import { reservationsService } from './reservations.service.js';

export type { ReservationsService } from './reservations.service.js';

/** Reservations (spec 4.6), restaurants only; the public create may be rate limited (RESERVATION_RATE_LIMIT). */
export const reservationsModule = defineModule({
  name: 'reservations',
  tables: [reservations],
  services: (deps) => ({ reservations: reservationsService(deps) }),
  routes: (app, services) => reservationsRoutes(app, services),
  demoSeed: (services, demo) => seedDemoReservations(services.reservations, demo.tenant, demo.clock),
});
