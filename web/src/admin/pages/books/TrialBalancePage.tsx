/** The trial balance (balancete) of a month: posted entries, per account with lines in the month. */
import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import type { PageProps } from '../../types.js';
import { Field, fieldId } from '../../ui/Field.js';
import { Loading, money, monthBefore, parseMonth, useLoad } from './common.js';
import { s } from './strings.js';

const monthId = fieldId('tb-month');

export default function TrialBalancePage({ slug }: PageProps) {
  const [month, setMonth] = useState(monthBefore(0));
  const valid = /^\d{4}-\d{2}$/.test(month);
  const rows = useLoad(
    () => (valid ? call(api.GET('/t/{slug}/accounting/ledger/balancete', { params: { path: { slug }, query: parseMonth(month) } })) : Promise.resolve(null)),
    [slug, month],
  );
  const data = rows.data ?? [];
  return (
    <>
      <h1>{s.trial.title}</h1>
      <p>{s.trial.intro}</p>
      <div class="toolbar">
        <Field label={s.periods.month} id={monthId} error={valid ? null : s.periods.monthRequired}>
          {(p) => <input {...p} type="month" value={month} onInput={(e) => setMonth(e.currentTarget.value)} />}
        </Field>
      </div>
      <Loading loading={rows.loading && !rows.data} error={rows.error} />
      {rows.data && data.length === 0 && <p class="empty">{s.trial.empty}</p>}
      {data.length > 0 && (
        <div class="books-scroll" tabIndex={0} role="region" aria-label={s.scrollTable}>
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{s.account}</th>
                <th scope="col">{s.accounts.nature}</th>
                <th scope="col" class="num">{s.debit}</th>
                <th scope="col" class="num">{s.credit}</th>
                <th scope="col" class="num">{s.balance}</th>
              </tr>
            </thead>
            <tbody>
              {data.map((r) => (
                <tr key={r.accountId}>
                  <th scope="row">
                    {r.accountCode} {r.accountName}
                  </th>
                  <td>{s.natures[r.nature] ?? r.nature}</td>
                  <td class="num">{money(r.totalDebit)}</td>
                  <td class="num">{money(r.totalCredit)}</td>
                  <td class="num">{money(r.balance)}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">{s.total}</th>
                <td />
                <td class="num">{money(data.reduce((a, r) => a + r.totalDebit, 0))}</td>
                <td class="num">{money(data.reduce((a, r) => a + r.totalCredit, 0))}</td>
                <td />
              </tr>
            </tfoot>
          </table>
        </div>
      )}
    </>
  );
}
