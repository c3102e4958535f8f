/**
 * The journal of bench/accounting-run.ts: one tenant's year of entries, generated twice from the same
 * integer formulas, once in SQL (`generate_series`, inserted by the runner as the owner in a few statements)
 * and once in JavaScript (`expectedBooks`: what every balancete and balance sheet must answer), so both
 * sides of the bench are checked against sums worked out without the database.
 *
 * Entry g (1..entries), with r = g % 100:
 *   r = 0   a draft (excluded everywhere)
 *   r = 1   status `reversed` (the spec's enum: excluded everywhere; the app itself never assigns it)
 *   r = 2   a posted entry later reversed: `reversed_by_id` = entry g + 1
 *   r = 3   its posted counter-entry: `reverses_id` = entry g - 1, same date, the same lines with debits and
 *           credits swapped (both count and cancel out, as the journal's reversal does)
 *   others  a posted entry
 * Each entry has 4 lines on the analytic accounts (`accounts`, indexes by formula): two debits, two credits,
 * balanced to the cent. Dates: `year`-01-01 + floor((b - 1) * 365 / entries) days (b = g, or g - 1 for a
 * counter-entry): the entries are written in date order, as a journal is (its rows of a month lie together on
 * disk), about 685 a day for 250,000.
 */

export interface BenchAccount {
  id: string;
  code: string;
  name: string;
  nature: string;
}

export const BENCH_YEAR = 2025;
const DAYS = 365;
/** Multipliers and offsets of the 4 lines' account indexes. */
const ACC_MUL = [31, 37, 41, 43];
const ACC_ADD = [0, 5, 11, 17];

export const entryId = (g: number) => 'e' + g.toString(16).padStart(23, '0');

/** The formulas of one entry (its base b, date index, the 4 account indexes, the 4 amounts and which are debits). */
export function entryOf(g: number, entries: number, nAccounts: number) {
  const r = g % 100;
  const status = r === 0 ? 'draft' : r === 1 ? 'reversed' : 'posted';
  const b = r === 3 ? g - 1 : g;
  const day = Math.floor(((b - 1) * DAYS) / entries);
  const acc = ACC_MUL.map((m, k) => (b * m + ACC_ADD[k]) % nAccounts);
  const a1 = 100 + ((b * 7919) % 90000);
  const a2 = 100 + ((b * 104729) % 40000);
  const s = a1 + a2;
  const a3 = 50 + ((b * 1299709) % (s - 100));
  const amounts = [a1, a2, a3, s - a3];
  /** Lines 1-2 are debits, 3-4 credits; swapped on a counter-entry. */
  const swap = r === 3;
  return { r, status, b, day, acc, amounts, swap, total: s };
}

/** `YYYY-MM-DD` of day index `day` (0-based) of the bench year; 12 months. */
export function dateOf(day: number): string {
  return new Date(Date.UTC(BENCH_YEAR, 0, 1 + day)).toISOString().slice(0, 10);
}

/** Posted debits and credits by account index, per month (1-12), in cents. */
export interface ExpectedBooks {
  /** month -> account index -> [debits, credits] */
  byMonth: Map<number, Map<number, [number, number]>>;
  lines: number;
  postedLines: number;
  entries: number;
  postedEntries: number;
}

/** What the generator writes, summed in JavaScript: posted lines only. */
export function expectedBooks(entries: number, nAccounts: number): ExpectedBooks {
  const byMonth = new Map<number, Map<number, [number, number]>>();
  let postedEntries = 0;
  for (let g = 1; g <= entries; g++) {
    const e = entryOf(g, entries, nAccounts);
    if (e.status !== 'posted') continue;
    postedEntries++;
    const month = Number(dateOf(e.day).slice(5, 7));
    let m = byMonth.get(month);
    if (!m) byMonth.set(month, (m = new Map()));
    for (let k = 0; k < 4; k++) {
      const debit = (k < 2) !== e.swap;
      const cell = m.get(e.acc[k]) ?? [0, 0];
      cell[debit ? 0 : 1] += e.amounts[k];
      m.set(e.acc[k], cell);
    }
  }
  return { byMonth, lines: entries * 4, postedLines: postedEntries * 4, entries, postedEntries };
}

/** Sums of `expectedBooks` over the months `1..upTo`: account index -> [debits, credits]. */
export function cumulative(books: ExpectedBooks, upTo: number): Map<number, [number, number]> {
  const out = new Map<number, [number, number]>();
  for (let month = 1; month <= upTo; month++) {
    for (const [acc, [d, c]] of books.byMonth.get(month) ?? []) {
      const cell = out.get(acc) ?? [0, 0];
      cell[0] += d;
      cell[1] += c;
      out.set(acc, cell);
    }
  }
  return out;
}

/** The same entries in SQL, over g in [$2, $3] of `entries`. Keep in step with `entryOf`. */
const entryCte = (entries: number) => `
  gen as (
    select g, g % 100 as r, case when g % 100 = 3 then g - 1 else g end as b
    from generate_series($2::bigint, $3::bigint) g
  ),
  f as (
    select g, r, b,
      (date '${BENCH_YEAR}-01-01' + ((b - 1) * ${DAYS} / ${entries})::int) as d,
      100 + (b * 7919) % 90000 as a1,
      100 + (b * 104729) % 40000 as a2,
      case when r = 0 then 'draft' when r = 1 then 'reversed' else 'posted' end as status
    from gen
  ),
  e as (
    select f.*, 50 + (b * 1299709) % (a1 + a2 - 100) as a3
    from f
  )`;

const eid = (g: string) => `('e' || lpad(to_hex(${g}), 23, '0'))`;
const number = (g: string) => `('JE-${BENCH_YEAR}-' || case when ${g} < 100000 then lpad(${g}::text, 5, '0') else ${g}::text end)`;

/** $1 tenant, $2 first g, $3 last g, $4 the user who wrote and posted them. */
export const insertEntries = (entries: number) => `
with ${entryCte(entries)}
insert into journal_entries (tenant_id, id, entry_number, competence_date, description, status, total_cents, reverses_id, reversed_by_id,
  reversal_reason, created_by, posted_at, posted_by, created_at, updated_at)
select $1, ${eid('g')}, ${number('g')}, d,
  case when r = 3 then 'Estorno de ' || ${number('(g - 1)')} || ': bench' else 'Bench lançamento ' || g end,
  status, a1 + a2,
  case when r = 3 then ${eid('(g - 1)')} end,
  case when r = 2 then ${eid('(g + 1)')} end,
  case when r in (2, 3) then 'bench' end,
  $4::char(24), case when status <> 'draft' then d::timestamptz + interval '12 hours' end, case when status <> 'draft' then $4::char(24) end,
  d::timestamptz + interval '11 hours', d::timestamptz + interval '12 hours'
from e`;

/** $1 tenant, $2 first g, $3 last g, $4 the accounts' ids, $5 their codes, $6 their names (the line keeps them as posted). */
export const insertLines = (entries: number) => `
with ${entryCte(entries)},
l as (
  select e.g, k.k,
    ((e.b * (array[${ACC_MUL.join(', ')}])[k.k] + (array[${ACC_ADD.join(', ')}])[k.k]) % cardinality($4::text[]))::int as acc,
    (array[e.a1, e.a2, e.a3, e.a1 + e.a2 - e.a3])[k.k] as amount,
    (k.k <= 2) <> (e.r = 3) as debit
  from e cross join generate_series(1, 4) as k(k)
)
insert into journal_lines (tenant_id, id, entry_id, line_no, account_id, account_code, account_name, debit_cents, credit_cents, memo)
select $1, ('f' || lpad(to_hex(l.g * 4 + l.k), 23, '0')), ${eid('l.g')}, l.k,
  ($4::text[])[l.acc + 1], ($5::text[])[l.acc + 1], ($6::text[])[l.acc + 1],
  case when l.debit then l.amount else 0 end, case when l.debit then 0 else l.amount end, null
from l`;
