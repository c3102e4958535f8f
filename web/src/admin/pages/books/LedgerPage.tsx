/** The ledger (razão) of an analytic account between two dates, with its running balance. */
import { useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { api, call } from '../../api/client.js';
import type { PageProps } from '../../types.js';
import { Field, fieldId } from '../../ui/Field.js';
import { formatDay, today } from '../../ui/format.js';
import { errorText, Loading, money, monthBefore, useLoad } from './common.js';
import { s } from './strings.js';

const ids = { account: fieldId('account'), from: fieldId('from'), to: fieldId('to') };
type Line = { entryNumber: string; competenceDate: string; description: string; debit: number; credit: number; runningBalance: number };

export default function LedgerPage({ slug, query }: PageProps) {
  const chart = useLoad(() => call(api.GET('/t/{slug}/accounting/chart', { params: { path: { slug } } })), [slug]);
  const accounts = (chart.data ?? []).filter((a) => a.type === 'analitica');
  const [accountId, setAccountId] = useState(query.get('account') ?? '');
  const [from, setFrom] = useState(`${monthBefore(3)}-01`);
  const [to, setTo] = useState(today());
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [lines, setLines] = useState<Line[] | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    const found: Record<string, string | undefined> = {};
    if (!accountId) found.accountId = s.ledger.accountRequired;
    if (!from) found.startDate = s.required;
    if (!to) found.endDate = s.required;
    else if (from && to < from) found.endDate = s.ledger.toBeforeFrom;
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;
    setBusy(true);
    try {
      setLines(await call(api.GET('/t/{slug}/accounting/ledger/razao', { params: { path: { slug }, query: { accountId, startDate: from, endDate: to } } })));
    } catch (err) {
      if (err instanceof ApiError && err.fields.length)
        setErrors({ accountId: err.fieldMessage('accountId'), startDate: err.fieldMessage('startDate'), endDate: err.fieldMessage('endDate') });
      else setErrors({ form: errorText(err) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <h1>{s.ledger.title}</h1>
      <p>{s.ledger.intro}</p>
      <Loading loading={chart.loading && !chart.data} error={chart.error} />
      <form class="card books-form" onSubmit={submit} noValidate>
        <Field label={s.account} id={ids.account} error={errors.accountId}>
          {(p) => (
            <select {...p} value={accountId} onChange={(e) => setAccountId(e.currentTarget.value)} required>
              <option value="">{s.journal.chooseAccount}</option>
              {accounts.map((a) => (
                <option key={a._id} value={a._id}>
                  {a.code} {a.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={s.ledger.from} id={ids.from} error={errors.startDate}>
          {(p) => <input {...p} type="date" value={from} onInput={(e) => setFrom(e.currentTarget.value)} required />}
        </Field>
        <Field label={s.ledger.to} id={ids.to} error={errors.endDate}>
          {(p) => <input {...p} type="date" value={to} onInput={(e) => setTo(e.currentTarget.value)} required />}
        </Field>
        <button type="submit" class="btn primary" disabled={busy}>
          {s.show}
        </button>
      </form>
      {errors.form && (
        <p class="form-error" role="alert">
          {errors.form}
        </p>
      )}
      {lines === null && <p class="empty">{s.ledger.pick}</p>}
      {lines && lines.length === 0 && <p class="empty">{s.ledger.empty}</p>}
      {lines && lines.length > 0 && (
        <div class="books-scroll" tabIndex={0} role="region" aria-label={s.scrollTable}>
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{s.date}</th>
                <th scope="col">{s.journal.number}</th>
                <th scope="col">{s.description}</th>
                <th scope="col" class="num">{s.debit}</th>
                <th scope="col" class="num">{s.credit}</th>
                <th scope="col" class="num">{s.ledger.runningBalance}</th>
              </tr>
            </thead>
            <tbody>
              {lines.map((l, i) => (
                <tr key={i}>
                  <td>{formatDay(l.competenceDate)}</td>
                  <td>{l.entryNumber}</td>
                  <td>{l.description}</td>
                  <td class="num">{l.debit ? money(l.debit) : ''}</td>
                  <td class="num">{l.credit ? money(l.credit) : ''}</td>
                  <td class="num">{money(l.runningBalance)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
