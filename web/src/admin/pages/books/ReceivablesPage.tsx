/** Receivables: the aging of what is open (chart), the list by due date (status filter, paged), a receipt. */
import { useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { api, call } from '../../api/client.js';
import type { PageProps } from '../../types.js';
import { BarChart } from '../../ui/BarChart.js';
import { Field, fieldId } from '../../ui/Field.js';
import { formatDay, formatMoney, today } from '../../ui/format.js';
import { Pager } from '../../ui/Pager.js';
import { errorText, Loading, money, Status, useLoad } from './common.js';
import { s } from './strings.js';

const LIMIT = 20;
const STATUSES = ['open', 'partial', 'settled', 'written_off'] as const;
const METHODS = ['pix', 'cash', 'bank_transfer', 'boleto', 'credit_card', 'debit_card', 'voucher', 'check'] as const;
type Method = (typeof METHODS)[number];
const ids = { status: fieldId('rstatus'), amount: fieldId('ramount'), method: fieldId('rmethod') };

function Settle({ slug, id, outstanding, onDone }: { slug: string; id: string; outstanding: number; onDone: (ok: boolean) => void }) {
  const [amount, setAmount] = useState(outstanding.toFixed(2).replace('.', ','));
  const [method, setMethod] = useState<Method>('pix');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(e: Event) {
    e.preventDefault();
    const value = Number(amount.replace(/\./g, '').replace(',', '.'));
    if (!Number.isFinite(value) || value <= 0 || value > outstanding + 1e-9) return setError(s.receivables.amountInvalid(money(outstanding)));
    setBusy(true);
    try {
      await call(api.POST('/t/{slug}/accounting/receivables/{id}/settle', { params: { path: { slug, id } }, body: { amount: Math.round(value * 100) / 100, paymentMethod: method } }));
      onDone(true);
    } catch (err) {
      setError(err instanceof ApiError ? (err.fieldMessage('amount') ?? errorText(err)) : errorText(err));
    } finally {
      setBusy(false);
    }
  }
  return (
    <form class="books-form" onSubmit={submit} noValidate>
      <Field label={s.receivables.settleAmount} id={ids.amount} error={error}>
        {(p) => <input {...p} inputMode="decimal" value={amount} onInput={(e) => setAmount(e.currentTarget.value)} required />}
      </Field>
      <Field label={s.receivables.method} id={ids.method}>
        {(p) => (
          <select {...p} value={method} onChange={(e) => setMethod(e.currentTarget.value as Method)}>
            {METHODS.map((m) => (
              <option key={m} value={m}>
                {s.receivables.methods[m]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <button type="submit" class="btn primary" disabled={busy}>
        {s.receivables.settle}
      </button>
      <button type="button" class="btn" onClick={() => onDone(false)}>
        {s.cancel}
      </button>
    </form>
  );
}

const newIds = { customer: fieldId('ncustomer'), desc: fieldId('ndesc'), amount: fieldId('namount'), due: fieldId('ndue') };
const units = (v: string) => Number(v.trim().replace(/\./g, '').replace(',', '.'));

/** A sale on credit: D clientes C receita (the API posts it). */
function NewReceivable({ slug, onDone }: { slug: string; onDone: () => void }) {
  const [form, setForm] = useState({ customerName: '', description: '', amount: '', dueDate: '' });
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [busy, setBusy] = useState(false);
  const set = (patch: Partial<typeof form>) => setForm({ ...form, ...patch });
  async function submit(e: Event) {
    e.preventDefault();
    const amount = units(form.amount);
    const found: Record<string, string | undefined> = {};
    if (!form.customerName.trim()) found.customerName = s.required;
    if (!form.description.trim()) found.description = s.required;
    if (!Number.isFinite(amount) || amount <= 0) found.amount = s.receivables.amountRequired;
    if (!form.dueDate) found.dueDate = s.required;
    else if (form.dueDate < today()) found.dueDate = s.receivables.dueInPast;
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;
    setBusy(true);
    try {
      await call(
        api.POST('/t/{slug}/accounting/receivables', {
          params: { path: { slug } },
          body: { customerName: form.customerName.trim(), description: form.description.trim(), amount: Math.round(amount * 100) / 100, dueDate: form.dueDate },
        }),
      );
      setForm({ customerName: '', description: '', amount: '', dueDate: '' });
      onDone();
    } catch (err) {
      if (err instanceof ApiError && err.fields.length)
        setErrors(Object.fromEntries(['customerName', 'description', 'amount', 'dueDate'].map((k) => [k, err.fieldMessage(k)])));
      else setErrors({ form: errorText(err) });
    } finally {
      setBusy(false);
    }
  }
  return (
    <form class="card" onSubmit={submit} noValidate aria-labelledby="new-receivable">
      <h2 id="new-receivable">{s.receivables.add}</h2>
      <div class="books-form">
        <Field label={s.receivables.customer} id={newIds.customer} error={errors.customerName}>
          {(p) => <input {...p} value={form.customerName} maxLength={200} onInput={(e) => set({ customerName: e.currentTarget.value })} required />}
        </Field>
        <Field label={s.description} id={newIds.desc} error={errors.description}>
          {(p) => <input {...p} value={form.description} maxLength={500} onInput={(e) => set({ description: e.currentTarget.value })} required />}
        </Field>
        <Field label={s.amount} id={newIds.amount} error={errors.amount}>
          {(p) => <input {...p} inputMode="decimal" value={form.amount} onInput={(e) => set({ amount: e.currentTarget.value })} required />}
        </Field>
        <Field label={s.receivables.due} id={newIds.due} error={errors.dueDate}>
          {(p) => <input {...p} type="date" value={form.dueDate} onInput={(e) => set({ dueDate: e.currentTarget.value })} required />}
        </Field>
        <button type="submit" class="btn primary" disabled={busy}>
          {s.receivables.addBtn}
        </button>
      </div>
      {errors.form && (
        <p class="form-error" role="alert">
          {errors.form}
        </p>
      )}
    </form>
  );
}

export default function ReceivablesPage({ slug }: PageProps) {
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const [settling, setSettling] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const aging = useLoad(() => call(api.GET('/t/{slug}/accounting/receivables/aging', { params: { path: { slug } } })), [slug]);
  const list = useLoad(
    () =>
      call(
        api.GET('/t/{slug}/accounting/receivables', {
          params: { path: { slug }, query: { page, limit: LIMIT, ...(status ? { status: status as (typeof STATUSES)[number] } : {}) } },
        }),
      ),
    [slug, page, status],
  );
  const data = list.data;
  return (
    <>
      <h1>{s.receivables.title}</h1>
      <p>{s.receivables.intro}</p>
      {message && (
        <p class="notice" role="status">
          {message}
        </p>
      )}
      <Loading loading={aging.loading && !aging.data} error={aging.error} />
      {aging.data && (
        <section class="card" aria-label={s.receivables.aging}>
          <div class="books-chart">
            <BarChart
              title={`${s.receivables.aging}: ${money(aging.data.grandTotal)}`}
              bars={aging.data.buckets.map((b) => ({ label: s.receivables.buckets[b.label] ?? b.label, value: Math.round(b.total * 100) }))}
              format={formatMoney}
            />
          </div>
        </section>
      )}
      <div class="toolbar">
        <Field label={s.state} id={ids.status}>
          {(p) => (
            <select
              {...p}
              value={status}
              onChange={(e) => {
                setStatus(e.currentTarget.value);
                setPage(1);
              }}
            >
              <option value="">{s.journal.all}</option>
              {STATUSES.map((st) => (
                <option key={st} value={st}>
                  {s.status[st === 'settled' ? 'settled' : st]}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <Loading loading={list.loading && !data} error={list.error} />
      {data && data.data.length === 0 && <p class="empty">{s.receivables.empty}</p>}
      {data && data.data.length > 0 && (
        <div class="books-scroll" tabIndex={0} role="region" aria-label={s.scrollTable}>
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{s.receivables.customer}</th>
                <th scope="col">{s.receivables.due}</th>
                <th scope="col" class="num">{s.amount}</th>
                <th scope="col" class="num">{s.receivables.outstanding}</th>
                <th scope="col">{s.state}</th>
                <th scope="col">{s.actions}</th>
              </tr>
            </thead>
            <tbody>
              {data.data.map((r) => [
                <tr key={r._id}>
                  <th scope="row">
                    {r.customerName ?? r.method ?? '—'} <span class="hint">{r.description}</span>
                  </th>
                  <td>{formatDay(r.dueDate)}</td>
                  <td class="num">{money(r.amount)}</td>
                  <td class="num">{money(r.outstanding)}</td>
                  <td>
                    <Status value={r.status} />
                  </td>
                  <td>
                    {(r.status === 'open' || r.status === 'partial') && (
                      <button type="button" class="btn" onClick={() => setSettling(r._id)}>
                        {s.receivables.settle}
                      </button>
                    )}
                  </td>
                </tr>,
                settling === r._id && (
                  <tr key={`${r._id}-settle`}>
                    <td colSpan={6}>
                      <Settle
                        slug={slug}
                        id={r._id}
                        outstanding={r.outstanding}
                        onDone={(ok) => {
                          setSettling(null);
                          if (!ok) return;
                          setMessage(s.receivables.settled);
                          list.reload();
                          aging.reload();
                        }}
                      />
                    </td>
                  </tr>
                ),
              ])}
            </tbody>
          </table>
        </div>
      )}
      {data && <Pager page={page} total={data.total} limit={LIMIT} onPage={setPage} />}
      <NewReceivable
        slug={slug}
        onDone={() => {
          setMessage(s.receivables.added);
          list.reload();
          aging.reload();
        }}
      />
    </>
  );
}
