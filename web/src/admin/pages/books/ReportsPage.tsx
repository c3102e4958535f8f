/** Reports: the DRE of a month (admin) and the balance sheet at a day (admin and accountant), each with a chart. */
import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import type { PageProps } from '../../types.js';
import { BarChart } from '../../ui/BarChart.js';
import { Field, fieldId } from '../../ui/Field.js';
import { formatDay, formatMoney, today } from '../../ui/format.js';
import { firstDay, lastDay, Loading, money, monthBefore, monthLabel, parseMonth, useLoad } from './common.js';
import { s } from './strings.js';

const ids = { month: fieldId('dre-month'), asOf: fieldId('as-of'), cfMonth: fieldId('cf-month') };
const DRE_LINES = ['receitaBruta', 'deducoes', 'receitaLiquida', 'cmv', 'margemBruta', 'despesasOperacionais', 'ebitda', 'da', 'ebit', 'despesasFinanceiras', 'lucroLiquido'] as const;

function Dre({ slug }: { slug: string }) {
  const [month, setMonth] = useState(monthBefore(1));
  const valid = /^\d{4}-\d{2}$/.test(month);
  const dre = useLoad(() => (valid ? call(api.GET('/t/{slug}/dre', { params: { path: { slug }, query: parseMonth(month) } })) : Promise.resolve(null)), [slug, month]);
  const d = dre.data;
  return (
    <section class="card" aria-labelledby="dre-title">
      <h2 id="dre-title">{s.reports.dre}</h2>
      <Field label={s.reports.month} id={ids.month} error={valid ? null : s.periods.monthRequired}>
        {(p) => <input {...p} type="month" value={month} onInput={(e) => setMonth(e.currentTarget.value)} />}
      </Field>
      <Loading loading={dre.loading && !d} error={dre.error} />
      {d && (
        <>
          <div class="books-chart">
            <BarChart
              title={s.reports.chartDre(monthLabel(parseMonth(month)))}
              bars={(['receitaLiquida', 'cmv', 'despesasOperacionais', 'ebitda', 'lucroLiquido'] as const).map((k) => ({ label: s.reports.short[k], value: Math.round(d[k] * 100) }))}
              format={formatMoney}
            />
          </div>
          <table class="data">
            <tbody>
              {DRE_LINES.map((k) => (
                <tr key={k}>
                  <th scope="row">{s.reports.lines[k]}</th>
                  <td class="num">{money(d[k])}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

type Line = { code: string; name: string; balance: number };
function Group({ title, lines }: { title: string; lines: Line[] }) {
  return (
    <>
      <tr>
        <th scope="rowgroup" colSpan={2}>
          {title}
        </th>
      </tr>
      {lines.length === 0 ? (
        <tr>
          <td colSpan={2}>{s.reports.noLines}</td>
        </tr>
      ) : (
        lines.map((l) => (
          <tr key={l.code}>
            <td>
              {l.code} {l.name}
            </td>
            <td class="num">{formatMoney(l.balance)}</td>
          </tr>
        ))
      )}
    </>
  );
}

function BalanceSheet({ slug }: { slug: string }) {
  const [asOf, setAsOf] = useState(today());
  const valid = /^\d{4}-\d{2}-\d{2}$/.test(asOf);
  const bs = useLoad(
    () => (valid ? call(api.GET('/t/{slug}/admin/accounting/balance-sheet', { params: { path: { slug }, query: { asOf } } })) : Promise.resolve(null)),
    [slug, asOf],
  );
  const b = bs.data;
  return (
    <section class="card" aria-labelledby="bs-title">
      <h2 id="bs-title">{s.reports.balanceSheet}</h2>
      <Field label={s.reports.asOf} id={ids.asOf} error={valid ? null : s.required}>
        {(p) => <input {...p} type="date" value={asOf} onInput={(e) => setAsOf(e.currentTarget.value)} />}
      </Field>
      <Loading loading={bs.loading && !b} error={bs.error} />
      {b && (
        <>
          <div class="books-chart">
            <BarChart
              title={`${s.reports.chartBs} (${formatDay(b.asOf)})`}
              bars={[
                { label: s.reports.ativo, value: b.ativo.total },
                { label: s.reports.pl, value: b.passivoEPatrimonio.patrimonioLiquido.reduce((a, l) => a + l.balance, 0) },
                { label: 'Passivo', value: [...b.passivoEPatrimonio.circulante, ...b.passivoEPatrimonio.naoCirculante].reduce((a, l) => a + l.balance, 0) },
              ]}
              format={formatMoney}
            />
          </div>
          <div class="books-grid">
            <table class="data">
              <caption>{s.reports.ativo}</caption>
              <tbody>
                <Group title={s.reports.circulante} lines={b.ativo.circulante} />
                <Group title={s.reports.naoCirculante} lines={b.ativo.naoCirculante} />
              </tbody>
              <tfoot>
                <tr>
                  <th scope="row">{s.total}</th>
                  <td class="num">{formatMoney(b.ativo.total)}</td>
                </tr>
              </tfoot>
            </table>
            <table class="data">
              <caption>{s.reports.passivo}</caption>
              <tbody>
                <Group title={s.reports.circulante} lines={b.passivoEPatrimonio.circulante} />
                <Group title={s.reports.naoCirculante} lines={b.passivoEPatrimonio.naoCirculante} />
                <Group title={s.reports.pl} lines={b.passivoEPatrimonio.patrimonioLiquido} />
              </tbody>
              <tfoot>
                <tr>
                  <th scope="row">{s.total}</th>
                  <td class="num">{formatMoney(b.passivoEPatrimonio.total)}</td>
                </tr>
              </tfoot>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

function CashFlow({ slug }: { slug: string }) {
  const [month, setMonth] = useState(monthBefore(1));
  const valid = /^\d{4}-\d{2}$/.test(month);
  const cf = useLoad(
    () =>
      valid
        ? call(api.GET('/t/{slug}/admin/accounting/cash-flow', { params: { path: { slug }, query: { start: firstDay(month), end: lastDay(month) } } }))
        : Promise.resolve(null),
    [slug, month],
  );
  const c = cf.data;
  const rows = c
    ? ([
        [s.reports.saldoInicial, c.saldoInicial],
        [s.reports.operacional, c.operacional.total],
        [s.reports.investimento, c.investimento.total],
        [s.reports.financiamento, c.financiamento.total],
        [s.reports.saldoFinal, c.saldoFinal],
      ] as const)
    : [];
  return (
    <section class="card" aria-labelledby="cf-title">
      <h2 id="cf-title">{s.reports.cashFlow}</h2>
      <Field label={s.reports.month} id={ids.cfMonth} error={valid ? null : s.periods.monthRequired}>
        {(p) => <input {...p} type="month" value={month} onInput={(e) => setMonth(e.currentTarget.value)} />}
      </Field>
      <Loading loading={cf.loading && !c} error={cf.error} />
      {c && (
        <>
          <div class="books-chart">
            <BarChart title={s.reports.cashFlowChart} bars={rows.slice(1, 4).map(([label, value]) => ({ label, value }))} format={formatMoney} />
          </div>
          <table class="data">
            <tbody>
              {rows.map(([label, value]) => (
                <tr key={label}>
                  <th scope="row">{label}</th>
                  <td class="num">{formatMoney(value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

export default function ReportsPage({ slug, role }: PageProps) {
  return (
    <>
      <h1>{s.reports.title}</h1>
      <div class="books-grid">
        {role === 'accountant' ? <p class="notice">{s.reports.dreAdminOnly}</p> : <Dre slug={slug} />}
        <BalanceSheet slug={slug} />
        <CashFlow slug={slug} />
      </div>
    </>
  );
}
