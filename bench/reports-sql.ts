/**
 * The hand-written side of bench/reports-run.ts: the day report and the comparison of a period, each ONE
 * SQL statement written from the revenue rule (docs/decisions.md, "Branch reports"), independently of
 * src/modules/reports/reports.queries.ts. The day boundaries are computed in SQL
 * (`date::timestamp at time zone tz`). Served by bench/reports-server.ts and timed alone by the runner.
 */

/** Money columns of both baseline statements, over the CTE `o` (id, key, total). */
const MONEY = `
  m as (
    select o.key,
      sum(y.amount) filter (where y.method = 'cash') as cash,
      sum(y.amount) filter (where y.method in ('credit_card', 'debit_card', 'card')) as card,
      sum(y.amount) filter (where y.method = 'pix') as pix,
      sum(y.amount) filter (where y.method not in ('cash', 'pix', 'credit_card', 'debit_card', 'card')) as other,
      sum(y.tip) as tips
    from payments y join o on o.id = y.order_id
    where y.tenant_id = $1 and y.status = 'approved' and y.refund_requested_at is null
    group by o.key
  )`;

const COLUMNS = `coalesce(s.revenue, 0)::bigint as revenue, coalesce(m.cash, 0)::bigint as cash, coalesce(m.card, 0)::bigint as card,
  coalesce(m.pix, 0)::bigint as pix, coalesce(m.other, 0)::bigint as other, coalesce(m.tips, 0)::bigint as tips,
  coalesce(s.orders, 0)::int as orders, coalesce(h.shifts, 0)::int as shifts`;

/** $1 tenant, $2 branch, $3 day, $4 time zone. */
export const BASELINE_DAILY = `
with p as (select id, name from pdvs where tenant_id = $1 and branch_id = $2),
o as (
  select o.id, o.pdv_id as key, o.total from orders o
  where o.tenant_id = $1 and o.pdv_id in (select id from p)
    and o.paid_at >= ($3::date)::timestamp at time zone $4 and o.paid_at < ($3::date + 1)::timestamp at time zone $4
    and o.payment_status = 'approved' and o.status <> 'cancelled'
),
s as (select key, sum(total) as revenue, count(*) as orders from o group by key),
${MONEY},
h as (
  select pdv_id as key, count(*) as shifts from shifts
  where tenant_id = $1 and branch_id = $2
    and started_at >= ($3::date)::timestamp at time zone $4 and started_at < ($3::date + 1)::timestamp at time zone $4
  group by pdv_id
)
select p.id, p.name, ${COLUMNS}
from p left join s on s.key = p.id left join m on m.key = p.id left join h on h.key = p.id
order by p.name, p.id`;

/** $1 tenant, $2 from, $3 to (included), $4 time zone. */
export const BASELINE_COMPARE = `
with b as (select id, name from branches where tenant_id = $1),
o as (
  select o.id, p.branch_id as key, o.total from orders o join pdvs p on p.tenant_id = o.tenant_id and p.id = o.pdv_id
  where o.tenant_id = $1
    and o.paid_at >= ($2::date)::timestamp at time zone $4 and o.paid_at < ($3::date + 1)::timestamp at time zone $4
    and o.payment_status = 'approved' and o.status <> 'cancelled'
),
s as (select key, sum(total) as revenue, count(*) as orders from o group by key),
${MONEY},
h as (
  select branch_id as key, count(*) as shifts from shifts
  where tenant_id = $1
    and started_at >= ($2::date)::timestamp at time zone $4 and started_at < ($3::date + 1)::timestamp at time zone $4
  group by branch_id
)
select b.id, b.name, ${COLUMNS}
from b left join s on s.key = b.id left join m on m.key = b.id left join h on h.key = b.id
order by b.name, b.id`;
