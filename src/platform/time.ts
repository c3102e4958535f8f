export const DEFAULT_TIMEZONE = 'America/Sao_Paulo';

export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Building an Intl.DateTimeFormat costs far more than using one: keep one per (kind, zone). */
const formats = new Map<string, Intl.DateTimeFormat>();
function format(kind: string, timeZone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${kind}|${timeZone}`;
  let f = formats.get(key);
  if (!f) formats.set(key, (f = new Intl.DateTimeFormat(kind === 'date' ? 'en-CA' : kind === 'time' ? 'en-GB' : 'en-US', { timeZone, ...options })));
  return f;
}

/** The calendar date (YYYY-MM-DD) of an instant in a time zone. */
export function localDate(at: Date, timeZone: string): string {
  return format('date', timeZone, { year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

/** Offset of a time zone from UTC at an instant, in milliseconds (-3 h for São Paulo). */
function offsetMs(at: Date, timeZone: string): number {
  const parts = format('wall', timeZone, {
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(at.getTime() / 1000) * 1000;
}

/** The UTC instant at which a local calendar day (YYYY-MM-DD) starts in a time zone. */
export function startOfLocalDay(day: string, timeZone: string): Date {
  const wallMidnight = Date.parse(`${day}T00:00:00Z`);
  let instant = wallMidnight - offsetMs(new Date(wallMidnight), timeZone);
  // Across a DST change the offset at the guess may differ from the offset at midnight.
  const again = wallMidnight - offsetMs(new Date(instant), timeZone);
  if (again !== instant) instant = again;
  return new Date(instant);
}

/** `YYYY-MM-DD` that names a day of the calendar (no 2025-02-30). */
export function isCalendarDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** The wall-clock time (HH:MM, 24 h) of an instant in a time zone. */
export function localTime(at: Date, timeZone: string): string {
  const parts = format('time', timeZone, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '00';
  return `${part('hour')}:${part('minute')}`;
}

/** A calendar date `days` after (or before) a `YYYY-MM-DD` date. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}
