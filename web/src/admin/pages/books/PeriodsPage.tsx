/** Periods: the months of the books with their state; close a month (its balancete is the snapshot), reopen it. */
import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import type { PageProps } from '../../types.js';
import { Field, fieldId } from '../../ui/Field.js';
import { formatDateTime } from '../../ui/format.js';
import { errorText, Loading, money, monthBefore, monthLabel, parseMonth, Status, useLoad, type YearMonth } from './common.js';
import { s } from './strings.js';

type Closing = Awaited<ReturnType<typeof loadPeriods>>[number];
const loadPeriods = (slug: string) => call(api.GET('/t/{slug}/accounting/ledger/periods', { params: { path: { slug } } }));

const closeId = fieldId('period');

function Snapshot({ closing }: { closing: Closing }) {
  const rows = closing.trialBalanceSnapshot ?? [];
  const debit = rows.reduce((a, r) => a + r.totalDebit, 0);
  const credit = rows.reduce((a, r) => a + r.totalCredit, 0);
  return (
    <section class="card books-result" aria-labelledby="snapshot-title" data-testid="snapshot">
      <h2 id="snapshot-title">{s.periods.snapshot(monthLabel(closing))}</h2>
      {rows.length === 0 ? (
        <p class="empty">{s.periods.snapshotEmpty}</p>
      ) : (
        <div class="books-scroll" tabIndex={0} role="region" aria-label={s.scrollTable}>
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{s.account}</th>
                <th scope="col" class="num">{s.debit}</th>
                <th scope="col" class="num">{s.credit}</th>
                <th scope="col" class="num">{s.balance}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.accountId}>
                  <td>
                    {r.accountCode} {r.accountName}
                  </td>
                  <td class="num">{money(r.totalDebit)}</td>
                  <td class="num">{money(r.totalCredit)}</td>
                  <td class="num">{money(r.balance)}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">{s.total}</th>
                <td class="num">{money(debit)}</td>
                <td class="num">{money(credit)}</td>
                <td />
              </tr>
            </tfoot>
          </table>
        </div>
      )}
    </section>
  );
}

export default function PeriodsPage({ slug }: PageProps) {
  const periods = useLoad(() => loadPeriods(slug), [slug]);
  const [month, setMonth] = useState(monthBefore(1));
  const [monthError, setMonthError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<Closing | null>(null);

  async function act(kind: 'close' | 'reopen', period: YearMonth) {
    if (kind === 'reopen' && !confirm(s.periods.confirmReopen(monthLabel(period)))) return;
    setBusy(true);
    setError(null);
    setMessage(null);
    try {
      const body = { year: period.year, month: period.month };
      const out =
        kind === 'close'
          ? await call(api.POST('/t/{slug}/accounting/ledger/close', { params: { path: { slug } }, body }))
          : await call(api.POST('/t/{slug}/accounting/ledger/reopen', { params: { path: { slug } }, body }));
      setResult(kind === 'close' ? out : null);
      setMessage(kind === 'close' ? s.periods.closed(monthLabel(period)) : s.periods.reopened(monthLabel(period)));
      periods.reload();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  function submitClose(e: Event) {
    e.preventDefault();
    if (!/^\d{4}-\d{2}$/.test(month)) return setMonthError(s.periods.monthRequired);
    if (month > monthBefore(0)) return setMonthError(s.periods.monthFuture);
    setMonthError(null);
    void act('close', parseMonth(month));
  }

  const list = [...(periods.data ?? [])].reverse();
  return (
    <>
      <h1>{s.periods.title}</h1>
      <p>{s.periods.intro}</p>
      <form class="card books-form" onSubmit={submitClose} noValidate>
        <Field label={s.periods.month} id={closeId} error={monthError} hint={s.periods.monthHint}>
          {(p) => <input {...p} type="month" value={month} onInput={(e) => setMonth(e.currentTarget.value)} required />}
        </Field>
        <button type="submit" class="btn primary" disabled={busy}>
          {s.periods.close}
        </button>
      </form>
      {message && (
        <p class="notice" role="status">
          {message}
        </p>
      )}
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      {result && <Snapshot closing={result} />}
      <h2>{s.periods.list}</h2>
      <Loading loading={periods.loading && !periods.data} error={periods.error} />
      {periods.data && list.length === 0 && <p class="empty">{s.periods.empty}</p>}
      {list.length > 0 && (
        <div class="books-scroll" tabIndex={0} role="region" aria-label={s.scrollTable}>
          <table class="data" data-testid="periods">
            <thead>
              <tr>
                <th scope="col">{s.periods.month}</th>
                <th scope="col">{s.state}</th>
                <th scope="col">{s.periods.closedAt}</th>
                <th scope="col">{s.actions}</th>
              </tr>
            </thead>
            <tbody>
              {list.map((p) => (
                <tr key={`${p.year}-${p.month}`}>
                  <th scope="row">{monthLabel(p)}</th>
                  <td>
                    <Status value={p.status} />
                  </td>
                  <td>{p.closedAt ? formatDateTime(p.closedAt) : '—'}</td>
                  <td class="books-actions">
                    {p.status === 'closed' ? (
                      <>
                        <button type="button" class="btn" disabled={busy} onClick={() => setResult(p)}>
                          {s.periods.showSnapshot}
                        </button>
                        <button type="button" class="btn" disabled={busy} onClick={() => act('reopen', p)}>
                          {s.periods.reopen}
                        </button>
                      </>
                    ) : (
                      <button type="button" class="btn" disabled={busy} onClick={() => act('close', p)}>
                        {s.periods.closeThis}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
