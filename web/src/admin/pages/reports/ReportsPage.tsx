/**
 * Branch reports (admin, branch manager, accountant): a branch's day (per PDV and payment method) and the
 * comparison of branches over a period, with charts. An accountant cannot list branches (the API's rule):
 * the branches come from the comparison then.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import type { paths } from '../../api/schema.js';
import type { PageProps } from '../../types.js';
import { BarChart } from '../../ui/BarChart.js';
import { Field, fieldId } from '../../ui/Field.js';
import { formatDay, formatMoney, today } from '../../ui/format.js';
import { apiErrors, type Errors } from '../settings/forms.js';
import { strings as s } from './strings.js';
import './reports.css';

type Daily = paths['/api/t/{slug}/admin/branches/{id}/daily-report']['get']['responses'][200]['content']['application/json'];
type Compare = paths['/api/t/{slug}/admin/branches/compare']['get']['responses'][200]['content']['application/json'];
interface BranchRef {
  _id: string;
  name: string;
}
type Money = Daily['totals'];

const ids = { branch: fieldId('report-branch'), date: fieldId('report-date'), from: fieldId('compare-from'), to: fieldId('compare-to') };
const isDay = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`));
const daysBetween = (a: string, b: string) => Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
const shift = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

function Kpis({ m, extra }: { m: Money; extra?: { label: string; value: string } }) {
  const items = [
    { label: s.revenue, value: formatMoney(m.revenue) },
    { label: s.orders, value: String(m.orders) },
    ...(extra ? [extra] : []),
    { label: s.tips, value: formatMoney(m.tips) },
    { label: s.shifts, value: String(m.shifts) },
  ];
  return (
    <ul class="kpis">
      {items.map((i) => (
        <li key={i.label}>
          <span class="kpi-label">{i.label}</span>
          <span class="kpi-value">{i.value}</span>
        </li>
      ))}
    </ul>
  );
}

const methods = (m: Money) => [
  { label: s.cash, value: m.cash },
  { label: s.card, value: m.card },
  { label: s.pix, value: m.pix },
  { label: s.other, value: m.other },
];

/** The money columns of a row (PDV or branch), as table cells. */
const moneyCells = (m: Money) => (
  <>
    <td class="num">{formatMoney(m.revenue)}</td>
    <td class="num">{formatMoney(m.cash)}</td>
    <td class="num">{formatMoney(m.card)}</td>
    <td class="num">{formatMoney(m.pix)}</td>
    <td class="num">{formatMoney(m.other)}</td>
    <td class="num">{formatMoney(m.tips)}</td>
    <td class="num">{m.orders}</td>
  </>
);
const moneyHeads = () => (
  <>
    {[s.revenue, s.cash, s.card, s.pix, s.other, s.tips, s.orders].map((h) => (
      <th key={h} scope="col" class="num">
        {h}
      </th>
    ))}
  </>
);

export default function ReportsPage({ slug, role }: PageProps) {
  const [branches, setBranches] = useState<BranchRef[] | null>(null);
  const [branchId, setBranchId] = useState('');
  const [date, setDate] = useState(today());
  const [daily, setDaily] = useState<Daily | null>(null);
  const [dailyErrors, setDailyErrors] = useState<Errors>({});
  const [from, setFrom] = useState(shift(today(), -6));
  const [to, setTo] = useState(today());
  const [compare, setCompare] = useState<Compare | null>(null);
  const [compareErrors, setCompareErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const [shownBranch, setShownBranch] = useState('');

  const runDaily = async (id: string, day: string) => {
    const e: Errors = {};
    if (!id) e.branch = s.required;
    if (!isDay(day)) e.date = s.invalidDate;
    else if (day > today()) e.date = s.futureDate;
    setDailyErrors(e);
    if (e.branch || e.date) return;
    setBusy(true);
    try {
      setDaily(await call(api.GET('/api/t/{slug}/admin/branches/{id}/daily-report', { params: { path: { slug, id }, query: { date: day } } })));
      setShownBranch(id);
    } catch (err) {
      setDaily(null);
      setDailyErrors(apiErrors(err, ['date']));
    } finally {
      setBusy(false);
    }
  };

  const runCompare = async (a: string, b: string): Promise<Compare | null> => {
    const e: Errors = {};
    if (!isDay(a)) e.from = s.invalidDate;
    if (!isDay(b)) e.to = s.invalidDate;
    if (!e.from && !e.to && b < a) e.to = s.rangeOrder;
    if (!e.from && !e.to && daysBetween(a, b) > 365) e.to = s.rangeTooLong;
    setCompareErrors(e);
    if (e.from || e.to) return null;
    try {
      const c = await call(api.GET('/api/t/{slug}/admin/branches/compare', { params: { path: { slug }, query: { from: a, to: b } } }));
      setCompare(c);
      return c;
    } catch (err) {
      setCompare(null);
      setCompareErrors(apiErrors(err, ['from', 'to']));
      return null;
    }
  };

  useEffect(() => {
    void (async () => {
      const c = await runCompare(from, to);
      let list: BranchRef[] = [];
      if (role === 'accountant') list = (c?.branches ?? []).map((b) => ({ _id: b.branchId, name: b.branchName }));
      else {
        try {
          const page = await call(api.GET('/api/t/{slug}/admin/branches', { params: { path: { slug }, query: { limit: 100 } } }));
          list = page.data.map((b) => ({ _id: b._id, name: b.name }));
        } catch {
          list = (c?.branches ?? []).map((b) => ({ _id: b.branchId, name: b.branchName }));
        }
      }
      setBranches(list);
      if (list[0]) {
        setBranchId(list[0]._id);
        await runDaily(list[0]._id, date);
      }
    })();
  }, [slug]);

  const branchName = branches?.find((b) => b._id === shownBranch)?.name ?? '';

  return (
    <>
      <h1>{s.title}</h1>
      <section class="report-section" aria-labelledby="daily-heading">
        <h2 id="daily-heading">{s.daily}</h2>
        {branches === null ? (
          <p aria-busy="true">{s.loading}</p>
        ) : branches.length === 0 ? (
          <p class="empty">{s.noBranches}</p>
        ) : (
          <>
            <form
              class="report-form"
              noValidate
              onSubmit={(e) => {
                e.preventDefault();
                void runDaily(branchId, date);
              }}
            >
              <Field id={ids.branch} label={s.branch} error={dailyErrors.branch}>
                {(p) => (
                  <select {...p} value={branchId} onChange={(e) => setBranchId(e.currentTarget.value)}>
                    {branches.map((b) => (
                      <option key={b._id} value={b._id}>
                        {b.name}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field id={ids.date} label={s.date} error={dailyErrors.date}>
                {(p) => <input {...p} type="date" max={today()} value={date} onInput={(e) => setDate(e.currentTarget.value)} />}
              </Field>
              <button type="submit" class="btn primary" disabled={busy}>
                {s.show}
              </button>
            </form>
            {dailyErrors._form && (
              <p class="form-error" role="alert">
                {dailyErrors._form}
              </p>
            )}
            {daily && (
              <div data-testid="daily-report">
                <h3>{s.dailyOf(branchName, formatDay(daily.date))}</h3>
                <Kpis m={daily.totals} />
                {daily.totals.orders === 0 ? (
                  <p class="empty">{s.noSales}</p>
                ) : (
                  <div class="charts">
                    <BarChart title={s.byMethod} bars={methods(daily.totals)} format={formatMoney} />
                    <BarChart title={s.byPdv} bars={daily.byPdv.map((p) => ({ label: p.pdvName, value: p.revenue }))} format={formatMoney} />
                  </div>
                )}
                <div class="table-wrap">
                  <table class="data">
                    <caption class="sr-only">{s.perPdv}</caption>
                    <thead>
                      <tr>
                        <th scope="col">{s.pdv}</th>
                        {moneyHeads()}
                        <th scope="col" class="num">
                          {s.shifts}
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {daily.byPdv.map((p) => (
                        <tr key={p.pdvId}>
                          <th scope="row">{p.pdvName}</th>
                          {moneyCells(p)}
                          <td class="num">{p.shifts}</td>
                        </tr>
                      ))}
                    </tbody>
                    <tfoot>
                      <tr>
                        <th scope="row">{s.total}</th>
                        {moneyCells(daily.totals)}
                        <td class="num">{daily.totals.shifts}</td>
                      </tr>
                    </tfoot>
                  </table>
                </div>
              </div>
            )}
          </>
        )}
      </section>

      <section class="report-section" aria-labelledby="compare-heading">
        <h2 id="compare-heading">{s.compare}</h2>
        <form
          class="report-form"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void runCompare(from, to);
          }}
        >
          <Field id={ids.from} label={s.from} error={compareErrors.from}>
            {(p) => <input {...p} type="date" value={from} onInput={(e) => setFrom(e.currentTarget.value)} />}
          </Field>
          <Field id={ids.to} label={s.to} error={compareErrors.to}>
            {(p) => <input {...p} type="date" value={to} onInput={(e) => setTo(e.currentTarget.value)} />}
          </Field>
          <button type="submit" class="btn primary">
            {s.compareRun}
          </button>
        </form>
        {compareErrors._form && (
          <p class="form-error" role="alert">
            {compareErrors._form}
          </p>
        )}
        {compare && (
          <div data-testid="compare-report">
            <h3>{s.compareOf(formatDay(compare.from), formatDay(compare.to))}</h3>
            <Kpis m={compare.totals} extra={{ label: s.averageTicket, value: formatMoney(compare.totals.averageTicket) }} />
            {compare.branches.length === 0 || compare.totals.orders === 0 ? (
              <p class="empty">{s.noCompare}</p>
            ) : (
              <div class="charts">
                <BarChart title={s.compareRevenue} bars={compare.branches.map((b) => ({ label: b.branchName, value: b.revenue }))} format={formatMoney} />
                <BarChart title={s.compareTicket} bars={compare.branches.map((b) => ({ label: b.branchName, value: b.averageTicket }))} format={formatMoney} />
              </div>
            )}
            <div class="table-wrap">
              <table class="data">
                <caption class="sr-only">{s.perBranch}</caption>
                <thead>
                  <tr>
                    <th scope="col">{s.branch}</th>
                    {moneyHeads()}
                    <th scope="col" class="num">
                      {s.averageTicket}
                    </th>
                    <th scope="col" class="num">
                      {s.shifts}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {compare.branches.map((b) => (
                    <tr key={b.branchId}>
                      <th scope="row">{b.branchName}</th>
                      {moneyCells(b)}
                      <td class="num">{formatMoney(b.averageTicket)}</td>
                      <td class="num">{b.shifts}</td>
                    </tr>
                  ))}
                </tbody>
                <tfoot>
                  <tr>
                    <th scope="row">{s.total}</th>
                    {moneyCells(compare.totals)}
                    <td class="num">{formatMoney(compare.totals.averageTicket)}</td>
                    <td class="num">{compare.totals.shifts}</td>
                  </tr>
                </tfoot>
              </table>
            </div>
          </div>
        )}
      </section>
    </>
  );
}
