import type { Clock } from '../../platform/clock.js';
import { addDays, localDate } from '../../platform/time.js';
import type { ReservationsService, ReservationTenant } from './reservations.service.js';

/** A few reservations over the next days, in the states a host would see. */
export async function seedDemoReservations(reservations: ReservationsService, tenant: ReservationTenant, clock: Clock) {
  const today = localDate(clock.now(), tenant.timezone);
  const demo = [
    { customerName: 'Mariana Costa', customerPhone: '(11) 98765-4321', customerEmail: 'mariana.costa@example.com', date: addDays(today, 1), time: '20:00', partySize: 4, notes: 'Aniversário: trazer vela no pudim', status: 'confirmed' },
    { customerName: 'João Pereira', customerPhone: '+55 21 99876-5432', date: addDays(today, 1), time: '21:30', partySize: 2, status: 'pending' },
    { customerName: 'Família Oliveira', customerPhone: '(31) 3222-4455', date: addDays(today, 2), time: '12:30', partySize: 8, notes: 'Cadeirão para bebê', status: 'pending' },
    { customerName: 'Ricardo Almeida', customerPhone: '(11) 91234-5678', customerEmail: 'ricardo@example.com', date: addDays(today, 3), time: '19:45', partySize: 3, status: 'cancelled' },
  ] as const;
  for (const { status, ...input } of demo) {
    const created = await reservations.create(tenant, input);
    if (status === 'confirmed') await reservations.update(tenant, created._id, { status });
    if (status === 'cancelled') await reservations.cancel(tenant.db, created._id);
  }
  return demo.length;
}
