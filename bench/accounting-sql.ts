/**
 * The hand-written side of bench/accounting-run.ts: the balancete and the balance sheet, each ONE SQL
 * statement written from the spec's balance rule (4.11: ativo, custo, despesa: debits - credits; passivo,
 * patrimonio_liquido, receita: credits - debits; only posted entries), independently of
 * src/modules/accounting/*.queries.ts: the lines are summed per account first, the chart (the tenant's
 * accounts, then the system's) joined to the few sums after. Served by bench/accounting-server.ts and timed
 * alone by the runner. Answers cents (bigint: text in `pg`).
 */

/** The tenant's accounts and the system chart's, one relation ($1 tenant). */
const CHART = `(
  select id, code, name, nature, type, parent_id from chart_accounts where tenant_id = $1
  union all
  select id, code, name, nature, type, parent_id from system_accounts
)`;

/** $1 tenant, $2 year, $3 month: one row per account with posted lines in the month. */
export const BASELINE_BALANCETE = `
with s as (
  select l.account_id, sum(l.debit_cents) as debit, sum(l.credit_cents) as credit
  from journal_entries e
  join journal_lines l on l.tenant_id = e.tenant_id and l.entry_id = e.id
  where e.tenant_id = $1 and e.status = 'posted'
    and e.competence_date >= make_date($2::int, $3::int, 1)
    and e.competence_date < (make_date($2::int, $3::int, 1) + interval '1 month')::date
  group by l.account_id
)
select s.account_id as id, a.code, a.name, a.nature, s.debit::bigint as debit, s.credit::bigint as credit,
  (case when a.nature in ('ativo', 'custo', 'despesa') then s.debit - s.credit else s.credit - s.debit end)::bigint as balance
from s join ${CHART} a on a.id = s.account_id
order by a.code, s.account_id`;

/** A JSON array of the lines `l` of a section, by code numerically (6.2 before 6.10). */
const section = (name: string) =>
  `coalesce((select json_agg(json_build_object('code', code, 'name', name, 'balance', balance) order by string_to_array(code, '.')::int[]) ` +
  `from l where section = '${name}'), '[]'::json)`;

/**
 * $1 tenant, $2 asOf: the balance sheet at the end of asOf, the whole answer built by the statement (the app's
 * shape). Every posted line up to asOf, summed per account (debits - credits), `prior` for the years before
 * asOf's. Ativo: 1.1 circulante, the rest não circulante; passivo: 2.2 não circulante, the rest circulante;
 * patrimônio líquido with the results not closed into it (receita, custo, despesa: credits - debits), this
 * year's on 3.3 and the earlier years' on 3.2, added to those accounts' own balances. Zero lines left out.
 */
export const BASELINE_BALANCE_SHEET = `
with s as (
  select l.account_id, sum(l.debit_cents - l.credit_cents) as net,
    coalesce(sum(l.debit_cents - l.credit_cents) filter (where e.competence_date < make_date(extract(year from $2::date)::int, 1, 1)), 0) as prior
  from journal_entries e
  join journal_lines l on l.tenant_id = e.tenant_id and l.entry_id = e.id
  where e.tenant_id = $1 and e.status = 'posted' and e.competence_date <= $2::date
  group by l.account_id
),
a as (select s.net, s.prior, c.code, c.name, c.nature from s join ${CHART} c on c.id = s.account_id),
b as (
  select
    case
      when nature = 'ativo' then case when code = '1.1' or code like '1.1.%' then 'ac' else 'anc' end
      when nature = 'passivo' then case when code = '2.2' or code like '2.2.%' then 'pnc' else 'pc' end
      else 'pl'
    end as section,
    code, name, case when nature = 'ativo' then net else -net end as balance
  from a where nature in ('ativo', 'passivo', 'patrimonio_liquido')
  union all
  select 'pl', '3.2', 'Lucros ou prejuízos acumulados', -coalesce(sum(prior), 0) from a where nature in ('receita', 'custo', 'despesa')
  union all
  select 'pl', '3.3', 'Resultado do exercício', -coalesce(sum(net - prior), 0) from a where nature in ('receita', 'custo', 'despesa')
),
l as (
  select section, code, min(name) as name, sum(balance)::bigint as balance from b group by section, code having sum(balance) <> 0
)
select json_build_object(
  'asOf', to_char($2::date, 'YYYY-MM-DD'),
  'ativo', json_build_object(
    'circulante', ${section('ac')}, 'naoCirculante', ${section('anc')},
    'total', (select coalesce(sum(balance), 0)::bigint from l where section in ('ac', 'anc'))
  ),
  'passivoEPatrimonio', json_build_object(
    'circulante', ${section('pc')}, 'naoCirculante', ${section('pnc')}, 'patrimonioLiquido', ${section('pl')},
    'total', (select coalesce(sum(balance), 0)::bigint from l where section in ('pc', 'pnc', 'pl'))
  )
) as sheet`;
