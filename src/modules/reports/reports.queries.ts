import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { branches, pdvs } from '../../db/schema/branches.js';
import { orders, type PaymentMethod } from '../../db/schema/orders.js';
import { payments } from '../../db/schema/payments.js';
import { shifts } from '../../db/schema/shifts.js';

/**
 * Branch reports: read-only aggregates over other modules' tables (orders, payments, shifts, PDVs,
 * branches), each report ONE select statement so the database does the sums over an index range
 * (test/module-boundaries.test.ts lists these reads in MODULE_READS; docs/decisions.md, "Branch reports").
 * Nothing here writes. Tenant id always a parameter (the row-level policy is the net).
 *
 * The revenue rule, shared by every report: an order counts on the local day it was paid in full
 * (`paid_at` in [start, end)), when `payment_status = 'approved'` and it is not cancelled; its revenue is
 * its `total`. Its money by method is the amount of its approved payments whose refund is not requested
 * (the ledger's `amountPaid`, which equals the total of a paid order), so revenue = cash + card + pix + other.
 * Tips are the same payments' `tip`, apart. Orders reach a branch through their PDV (an order without a PDV
 * belongs to no branch); shifts carry their branch (the PDV's, which never changes) and are read by it,
 * through the index `shifts_branch_idx`.
 */

/** Payment methods by report column; every other method (voucher, mixed...) is `other`. */
export const CARD_METHODS = ['credit_card', 'debit_card', 'card'] as const satisfies readonly PaymentMethod[];

/** Money of a group of counted orders, integer cents; `orders` is a count. */
export interface Money {
  revenue: number;
  cash: number;
  card: number;
  pix: number;
  other: number;
  tips: number;
  orders: number;
  shifts: number;
}

/** A half-open instant range [start, end), ISO strings (sent as parameters, cast in SQL). */
export interface Range {
  start: string;
  end: string;
}

const methodList = (methods: readonly string[]) => sql.join(methods.map((m) => sql`${m}`), sql`, `);
const KNOWN = ['cash', 'pix', ...CARD_METHODS];

/** The counted orders of the tenant in the range (a where clause on `orders`). */
function countedWhere(tenantId: string, r: Range): SQL {
  return sql`${orders.tenantId} = ${tenantId}
    and ${orders.paidAt} >= ${r.start}::timestamptz and ${orders.paidAt} < ${r.end}::timestamptz
    and ${orders.status} <> 'cancelled'`;
}

/** Per `key` of the CTE `counted` (id, key, total): its money by method and tips (a select over payments). */
function moneyOf(tenantId: string): SQL {
  return sql`select counted.key,
      coalesce(sum(${payments.amount}) filter (where ${payments.method} = 'cash'), 0) as cash,
      coalesce(sum(${payments.amount}) filter (where ${payments.method} in (${methodList(CARD_METHODS)})), 0) as card,
      coalesce(sum(${payments.amount}) filter (where ${payments.method} = 'pix'), 0) as pix,
      coalesce(sum(${payments.amount}) filter (where ${payments.method} not in (${methodList(KNOWN)})), 0) as other,
      coalesce(sum(${payments.tip}), 0) as tips
    from ${payments} join counted on counted.id = ${payments.orderId}
    where ${payments.tenantId} = ${tenantId} and ${payments.status} = 'approved' and ${payments.refundRequestedAt} is null
    group by counted.key`;
}

/** The money columns of the final select, from the CTEs `sales`, `money` and `opened` (zeros when absent). */
const MONEY_COLUMNS = sql`coalesce(sales.revenue, 0) as revenue, coalesce(money.cash, 0) as cash, coalesce(money.card, 0) as card,
  coalesce(money.pix, 0) as pix, coalesce(money.other, 0) as other, coalesce(money.tips, 0) as tips,
  coalesce(sales.orders, 0) as orders, coalesce(opened.shifts, 0) as shifts`;

type Row = Record<string, unknown>;

/** Runs a select; both drivers (node-postgres, PGlite) answer `{ rows }`, which drizzle's shared type leaves unknown. */
async function rowsOf(db: Db, query: SQL): Promise<Row[]> {
  const result: unknown = await db.execute(query);
  if (typeof result === 'object' && result !== null && 'rows' in result && Array.isArray(result.rows)) return result.rows;
  throw new Error('reports: the driver answered a select without rows');
}

/** bigint and numeric come back as strings (pg) or numbers/bigints (PGlite): integer cents either way. */
const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));

function moneyRow(r: Row): Money {
  return {
    revenue: num(r.revenue),
    cash: num(r.cash),
    card: num(r.card),
    pix: num(r.pix),
    other: num(r.other),
    tips: num(r.tips),
    orders: num(r.orders),
    shifts: num(r.shifts),
  };
}

export interface PdvMoney extends Money {
  pdvId: string;
  pdvName: string;
}

/**
 * The day report of a branch: one row per PDV of the branch (zeros when idle), or null when the branch
 * is not the tenant's. `range` is the local day.
 */
export async function dailyByPdv(db: Db, tenantId: string, branchId: string, range: Range): Promise<PdvMoney[] | null> {
  const rows = await rowsOf(
    db,
    sql`with pdv as (
        select ${pdvs.id} as id, ${pdvs.name} as name from ${pdvs} where ${pdvs.tenantId} = ${tenantId} and ${pdvs.branchId} = ${branchId}
      ),
      counted as (
        select ${orders.id} as id, ${orders.pdvId} as key, ${orders.total} as total from ${orders}
        where ${countedWhere(tenantId, range)} and ${orders.pdvId} in (select id from pdv)
      ),
      sales as (select key, sum(total) as revenue, count(*) as orders from counted group by key),
      money as (${moneyOf(tenantId)}),
      opened as (
        select ${shifts.pdvId} as key, count(*) as shifts from ${shifts}
        where ${shifts.tenantId} = ${tenantId} and ${shifts.branchId} = ${branchId}
          and ${shifts.startedAt} >= ${range.start}::timestamptz and ${shifts.startedAt} < ${range.end}::timestamptz
        group by ${shifts.pdvId}
      )
      select pdv.id as pdv_id, pdv.name as pdv_name, ${MONEY_COLUMNS}
      from ${branches}
        left join pdv on true
        left join sales on sales.key = pdv.id
        left join money on money.key = pdv.id
        left join opened on opened.key = pdv.id
      where ${branches.tenantId} = ${tenantId} and ${branches.id} = ${branchId}
      order by pdv.name, pdv.id`,
  );
  if (rows.length === 0) return null;
  return rows.filter((r) => r.pdv_id !== null).map((r) => ({ pdvId: String(r.pdv_id), pdvName: String(r.pdv_name), ...moneyRow(r) }));
}

export interface BranchMoney extends Money {
  branchId: string;
  branchName: string;
}

/** Every branch of the tenant (or those of `branchIds`) with its money in the range, by name. */
export async function byBranch(db: Db, tenantId: string, range: Range, branchIds: readonly string[] | null): Promise<BranchMoney[]> {
  if (branchIds && branchIds.length === 0) return [];
  const which = branchIds ? sql`and ${branches.id} in ${branchIds}` : sql``;
  const rows = await rowsOf(
    db,
    sql`with br as (
        select ${branches.id} as id, ${branches.name} as name from ${branches} where ${branches.tenantId} = ${tenantId} ${which}
      ),
      counted as (
        select ${orders.id} as id, ${pdvs.branchId} as key, ${orders.total} as total
        from ${orders} join ${pdvs} on ${pdvs.tenantId} = ${orders.tenantId} and ${pdvs.id} = ${orders.pdvId}
        where ${countedWhere(tenantId, range)} and ${pdvs.branchId} in (select id from br)
      ),
      sales as (select key, sum(total) as revenue, count(*) as orders from counted group by key),
      money as (${moneyOf(tenantId)}),
      opened as (
        select ${shifts.branchId} as key, count(*) as shifts from ${shifts}
        where ${shifts.tenantId} = ${tenantId} and ${shifts.branchId} in (select id from br)
          and ${shifts.startedAt} >= ${range.start}::timestamptz and ${shifts.startedAt} < ${range.end}::timestamptz
        group by ${shifts.branchId}
      )
      select br.id as branch_id, br.name as branch_name, ${MONEY_COLUMNS}
      from br
        left join sales on sales.key = br.id
        left join money on money.key = br.id
        left join opened on opened.key = br.id
      order by br.name, br.id`,
  );
  return rows.map((r) => ({ branchId: String(r.branch_id), branchName: String(r.branch_name), ...moneyRow(r) }));
}

export interface BranchStats {
  revenue: number;
  orders: number;
  activeShifts: number;
  activeOperators: number;
}

/** A branch's revenue and orders in the range and its open shifts now; null when the branch is not the tenant's. */
export async function branchStats(db: Db, tenantId: string, branchId: string, range: Range): Promise<BranchStats | null> {
  const rows = await rowsOf(
    db,
    sql`with pdv as (
        select ${pdvs.id} as id from ${pdvs} where ${pdvs.tenantId} = ${tenantId} and ${pdvs.branchId} = ${branchId}
      ),
      sales as (
        select coalesce(sum(${orders.total}), 0) as revenue, count(*) as orders from ${orders}
        where ${countedWhere(tenantId, range)} and ${orders.pdvId} in (select id from pdv)
      ),
      open as (
        select count(*) as shifts, count(distinct ${shifts.userId}) as operators from ${shifts}
        where ${shifts.tenantId} = ${tenantId} and ${shifts.branchId} = ${branchId} and ${shifts.status} = 'open'
      )
      select sales.revenue, sales.orders, open.shifts, open.operators
      from ${branches}, sales, open
      where ${branches.tenantId} = ${tenantId} and ${branches.id} = ${branchId}`,
  );
  const [r] = rows;
  if (!r) return null;
  return { revenue: num(r.revenue), orders: num(r.orders), activeShifts: num(r.shifts), activeOperators: num(r.operators) };
}
