/** Dates and times in the tenant's time zone, pt-BR; money in BRL from cents (shared/money.ts). */
export { formatMoney } from '../../shared/money.js';

let timeZone = 'America/Sao_Paulo';

/** Set once the tenant is known (its `timezone`). */
export function setTimeZone(tz: string) {
  timeZone = tz;
}

export const formatDateTime = (iso: string) =>
  new Intl.DateTimeFormat('pt-BR', { timeZone, dateStyle: 'short', timeStyle: 'short' }).format(new Date(iso));
export const formatTime = (iso: string) => new Intl.DateTimeFormat('pt-BR', { timeZone, timeStyle: 'short' }).format(new Date(iso));
/** `2026-11-26` (a calendar date) -> `26/11/2026`. */
export const formatDay = (day: string) => day.split('-').reverse().join('/');
/** Today in the tenant's time zone, `YYYY-MM-DD`. */
export const today = () => new Intl.DateTimeFormat('en-CA', { timeZone }).format(new Date());
