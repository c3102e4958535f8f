import { reservations } from '../../db/schema/tables.js';
import { defineModule } from '../../platform/module.js';
import { tablesModule } from '../tables/index.js';
import { seedDemoReservations } from './reservations.demo.js';
import { reservationsRoutes } from './reservations.routes.js';
import { reservationsService } from './reservations.service.js';

export type { ReservationsService } from './reservations.service.js';
export { CreateReservationBody, Reservation, type CreateReservationInput } from './reservations.schemas.js';

/**
 * Reservations (spec 4.6), restaurants only; the public create may be rate limited (RESERVATION_RATE_LIMIT).
 * A reservation may hold a table (locked through the tables service) and follows its seated party's tab
 * through the tables module's tab events.
 */
export const reservationsModule = defineModule({
  name: 'reservations',
  needs: [tablesModule],
  tables: [reservations],
  services: (deps, { tables }) => ({ reservations: reservationsService(deps, tables) }),
  routes: (app, services) => reservationsRoutes(app, services),
  demoSeed: (services, demo) => seedDemoReservations(services.reservations, demo.tenant, demo.clock),
});
