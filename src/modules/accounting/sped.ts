import type { TenantRow } from '../../db/schema/tenants.js';
import type { TenantTx } from '../../db/scopes.js';
import type { Deps } from '../../platform/deps.js';
import { Invalid, InvalidRequest } from '../../platform/domain-errors.js';
import { spedCompany } from '../../platform/sped-text.js';
import { buildBook } from './sped.book.js';
import * as q from './sped.queries.js';
import { registers, type Company } from './sped.registers.js';
import { encode, isoOf, date as ddmmaaaa } from './sped.text.js';

/**
 * The SPED ECD (Escrituração Contábil Digital) file of a period, leiaute 8 (manual in
 * ../shared/reference/ecd-manual-layout.txt): book G (Livro Diário completo) with every register the
 * validator (PVA) requires, from the tenant's POSTED entries with a competence date in [start, end].
 * docs/decisions.md, "Accounting: SPED ECD export".
 */

const ISO = /^\d{4}-\d{2}-\d{2}$/;
const realDate = (v: string) => ISO.test(v) && isoOf(ddmmaaaa(v)) === v;

/** The ECD covers whole months of one calendar year (0000: REGRA_PERIODO_MINIMO/MAXIMO, REGRA_INICIO/FIM_PERIODO). */
export function checkPeriod(start: string, end: string): void {
  const problems = [];
  if (!realDate(start)) problems.push({ field: 'start', message: 'must be a date (YYYY-MM-DD)' });
  if (!realDate(end)) problems.push({ field: 'end', message: 'must be a date (YYYY-MM-DD)' });
  if (problems.length) throw new Invalid(problems, { in: 'querystring' });
  const sped = (field: string, message: string) => new Invalid(field, message, { in: 'querystring', code: 'sped_period' });
  if (!start.endsWith('-01')) throw sped('start', 'must be the first day of a month: the ECD covers whole months');
  const next = new Date(`${end}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  if (next.getUTCDate() !== 1) throw sped('end', 'must be the last day of a month: the ECD covers whole months');
  if (end < start) throw sped('end', 'must not be before start');
  if (start.slice(0, 4) !== end.slice(0, 4)) throw sped('end', 'must be in the same calendar year as start: one ECD file covers one year at most');
}

/** The company's registration as the 0000, I030 and J930 registers need it (400 with a code when a required piece is missing). */
export function companyOf(tenant: TenantRow): Omit<Company, 'bookNumber'> {
  return {
    ...spedCompany(tenant, 'The SPED ECD'),
    city: tenant.city ?? '',
    email: tenant.email ?? '',
  };
}

export async function spedEcd(
  tx: TenantTx,
  _deps: Deps,
  input: { start: string; end: string; tenant: TenantRow },
): Promise<{ filename: string; body: Buffer }> {
  const { start, end, tenant } = input;
  checkPeriod(start, end);
  const company = companyOf(tenant);
  const yearStart = `${start.slice(0, 4)}-01-01`;
  const db = tx.db;
  const accounts = await q.chartOf(db, tx.tenantId);
  const { beforeStart: netsBeforeStart, beforeYear: netsBeforeYear } = await q.netsBefore(db, tx.tenantId, yearStart, start);
  const entries = await q.postedEntries(db, tx.tenantId, start, end);
  // Book G requires I200/I250 (manual 3.5): a period without posted entries has no Diário to deliver.
  if (entries.length === 0) throw new InvalidRequest(`There are no posted journal entries from ${start} to ${end}: nothing to deliver in a SPED ECD`, 'no_posted_entries');
  const firstYear = (await q.firstPostedYear(db, tx.tenantId)) ?? Number(start.slice(0, 4));
  const book = buildBook({ start, end, accounts, netsBeforeStart, netsBeforeYear, entries });
  // One Diário per calendar year since the first year of the books here: the year's book number.
  const bookNumber = Math.max(1, Number(start.slice(0, 4)) - firstYear + 1);
  const lines = registers({ ...company, bookNumber }, book);
  return { filename: `SPED-ECD-${company.cnpj}-${start}-${end}.txt`, body: encode(lines) };
}
