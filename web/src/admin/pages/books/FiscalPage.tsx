/**
 * Fiscal documents and the accountant portal: the month's summary, the documents (status filter, paged) with their XML
 * and DANFE; the admin also emits the NFC-e / NF-e of a paid order, cancels a note and invites the accountant.
 */
import { useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { api, call } from '../../api/client.js';
import type { PageProps } from '../../types.js';
import { BarChart } from '../../ui/BarChart.js';
import { Field, fieldId } from '../../ui/Field.js';
import { formatDateTime, formatMoney, today } from '../../ui/format.js';
import { Pager } from '../../ui/Pager.js';
import { download, errorText, firstDay, lastDay, Loading, monthBefore, monthLabel, parseMonth, Status, useLoad } from './common.js';
import { s } from './strings.js';

const LIMIT = 20;
const STATUSES = ['pending', 'authorized', 'rejected', 'cancelled'] as const;
type FiscalStatus = (typeof STATUSES)[number];
const ids = {
  month: fieldId('fmonth'),
  status: fieldId('fstatus'),
  day: fieldId('oday'),
  order: fieldId('order'),
  tipo: fieldId('tipo'),
  cpf: fieldId('cpf'),
  email: fieldId('iemail'),
  name: fieldId('iname'),
};

function Emit({ slug, onDone }: { slug: string; onDone: (msg: string) => void }) {
  const [day, setDay] = useState(today());
  const orders = useLoad(() => call(api.GET('/t/{slug}/orders', { params: { path: { slug }, query: { from: day, to: day, limit: 200 } } })), [slug, day]);
  const paid = (orders.data ?? []).filter((o) => o.paymentStatus === 'approved');
  const [orderId, setOrderId] = useState('');
  const [tipo, setTipo] = useState<'nfce' | 'nfe'>('nfce');
  const [cpf, setCpf] = useState('');
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    const digits = cpf.replace(/\D/g, '');
    const found: Record<string, string | undefined> = {};
    if (!orderId) found.orderId = s.fiscal.orderRequired;
    if (digits && digits.length !== 11) found.customerCpf = s.fiscal.cpfInvalid;
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;
    setBusy(true);
    try {
      const doc = await call(api.POST('/t/{slug}/fiscal/emit', { params: { path: { slug } }, body: { orderId, tipo, ...(digits ? { customerCpf: digits } : {}) } }));
      setOrderId('');
      onDone(s.fiscal.emitted(doc.nfeNumber));
    } catch (err) {
      if (err instanceof ApiError && err.fields.length) setErrors({ orderId: err.fieldMessage('orderId'), customerCpf: err.fieldMessage('customerCpf') });
      else setErrors({ form: errorText(err) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="card" onSubmit={submit} noValidate aria-labelledby="emit-title">
      <h2 id="emit-title">{s.fiscal.emit}</h2>
      <div class="books-form">
        <Field label={s.fiscal.orderDay} id={ids.day}>
          {(p) => <input {...p} type="date" value={day} onInput={(e) => setDay(e.currentTarget.value)} />}
        </Field>
        <Field label={s.fiscal.order} id={ids.order} error={errors.orderId ?? (orders.data && paid.length === 0 ? s.fiscal.noPaidOrders : null)}>
          {(p) => (
            <select {...p} value={orderId} onChange={(e) => setOrderId(e.currentTarget.value)} required>
              <option value="">{s.fiscal.chooseOrder}</option>
              {paid.map((o) => (
                <option key={o._id} value={o._id}>
                  {o.orderNumber} · {formatMoney(o.total)}
                  {o.customerName ? ` · ${o.customerName}` : ''}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={s.fiscal.type} id={ids.tipo}>
          {(p) => (
            <select {...p} value={tipo} onChange={(e) => setTipo(e.currentTarget.value as 'nfce' | 'nfe')}>
              <option value="nfce">{s.fiscal.types.nfce}</option>
              <option value="nfe">{s.fiscal.types.nfe}</option>
            </select>
          )}
        </Field>
        <Field label={s.fiscal.cpf} id={ids.cpf} error={errors.customerCpf}>
          {(p) => <input {...p} inputMode="numeric" value={cpf} maxLength={14} onInput={(e) => setCpf(e.currentTarget.value)} />}
        </Field>
        <button type="submit" class="btn primary" disabled={busy}>
          {s.fiscal.emitBtn}
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

function Invite({ slug }: { slug: string }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);
  async function submit(e: Event) {
    e.preventDefault();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim())) return setErrors({ email: s.fiscal.emailInvalid });
    setErrors({});
    setBusy(true);
    try {
      await call(api.POST('/t/{slug}/accountant/invite', { params: { path: { slug } }, body: { email: email.trim(), ...(name.trim() ? { name: name.trim() } : {}) } }));
      setDone(true);
      setEmail('');
      setName('');
    } catch (err) {
      if (err instanceof ApiError && err.fields.length) setErrors({ email: err.fieldMessage('email'), name: err.fieldMessage('name') });
      else setErrors({ email: errorText(err) });
    } finally {
      setBusy(false);
    }
  }
  return (
    <form class="card" onSubmit={submit} noValidate aria-labelledby="invite-title">
      <h2 id="invite-title">{s.fiscal.invite}</h2>
      <div class="books-form">
        <Field label={s.fiscal.inviteEmail} id={ids.email} error={errors.email}>
          {(p) => <input {...p} type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} required />}
        </Field>
        <Field label={s.fiscal.inviteName} id={ids.name} error={errors.name}>
          {(p) => <input {...p} value={name} maxLength={200} onInput={(e) => setName(e.currentTarget.value)} />}
        </Field>
        <button type="submit" class="btn primary" disabled={busy}>
          {s.fiscal.inviteBtn}
        </button>
      </div>
      {done && (
        <p class="notice" role="status">
          {s.fiscal.invited}
        </p>
      )}
    </form>
  );
}

/** The accountant portal's month figures: DeRE (revenue, cancellations, taxes) and the split payment estimate. */
function PortalSummary({ slug, month }: { slug: string; month: string }) {
  const query = { startDate: firstDay(month), endDate: lastDay(month) };
  const dere = useLoad(() => call(api.GET('/t/{slug}/accountant/dere', { params: { path: { slug }, query } })), [slug, month]);
  const split = useLoad(() => call(api.GET('/t/{slug}/accountant/split-payment', { params: { path: { slug }, query } })), [slug, month]);
  const d = dere.data;
  const sp = split.data;
  return (
    <section class="card" aria-labelledby="portal-title">
      <h2 id="portal-title">{s.fiscal.portal}</h2>
      <Loading loading={(dere.loading && !d) || (split.loading && !sp)} error={dere.error ?? split.error} />
      <table class="data">
        <tbody>
          {d && (
            <>
              <tr>
                <th scope="row">{s.fiscal.receitaBruta}</th>
                <td class="num">{formatMoney(d.receitaBruta)}</td>
              </tr>
              <tr>
                <th scope="row">{s.fiscal.cancelamentos}</th>
                <td class="num">{formatMoney(d.deducoes.cancelamentos)}</td>
              </tr>
              <tr>
                <th scope="row">{s.fiscal.impostos}</th>
                <td class="num">{formatMoney(d.deducoes.impostos)}</td>
              </tr>
              <tr>
                <th scope="row">{s.fiscal.receitaLiquida}</th>
                <td class="num">{formatMoney(d.receitaLiquida)}</td>
              </tr>
            </>
          )}
          {sp && (
            <tr>
              <th scope="row">{s.fiscal.splitPayment}</th>
              <td class="num">{formatMoney(sp.splitPaymentImpact)}</td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  );
}

export default function FiscalPage({ slug, role }: PageProps) {
  const [month, setMonth] = useState(monthBefore(0));
  const [status, setStatus] = useState<'' | FiscalStatus>('');
  const [page, setPage] = useState(1);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const valid = /^\d{4}-\d{2}$/.test(month);
  const dash = useLoad(
    () => (valid ? call(api.GET('/t/{slug}/accountant/dashboard', { params: { path: { slug }, query: parseMonth(month) } })) : Promise.resolve(null)),
    [slug, month],
  );
  const docs = useLoad(
    () => call(api.GET('/t/{slug}/accountant/documents', { params: { path: { slug }, query: { page, limit: LIMIT, ...(status ? { status } : {}) } } })),
    [slug, page, status],
  );
  const isAdmin = role === 'admin' || role === 'superadmin';

  async function cancel(id: string, number: string) {
    if (!confirm(s.fiscal.confirmCancel(number))) return;
    setError(null);
    try {
      await call(api.DELETE('/t/{slug}/fiscal/{id}/cancel', { params: { path: { slug, id } } }));
      setMessage(s.fiscal.cancelled);
      docs.reload();
      dash.reload();
    } catch (err) {
      setError(errorText(err));
    }
  }
  const file = (id: string, kind: 'xml' | 'danfe', number: string) =>
    download(`/t/${slug}/fiscal/${id}/${kind}`, `${number}.${kind === 'xml' ? 'xml' : 'pdf'}`).then(
      (name) => setMessage(s.exports.saved(name)),
      (err) => setError(errorText(err)),
    );

  const d = dash.data;
  return (
    <>
      <h1>{s.fiscal.title}</h1>
      <p>{s.fiscal.intro}</p>
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
      <section class="card" aria-labelledby="dash-title">
        <h2 id="dash-title">{s.fiscal.dashboard(valid ? monthLabel(parseMonth(month)) : '')}</h2>
        <Field label={s.fiscal.month} id={ids.month} error={valid ? null : s.periods.monthRequired}>
          {(p) => <input {...p} type="month" value={month} onInput={(e) => setMonth(e.currentTarget.value)} />}
        </Field>
        <Loading loading={dash.loading && !d} error={dash.error} />
        {d && (
          <div class="books-chart">
            <BarChart
              title={s.fiscal.byStatus}
              bars={STATUSES.map((st) => ({ label: s.status[st], value: d[st] }))}
              format={(v) => String(v)}
              height={150}
            />
          </div>
        )}
      </section>
      {valid && <PortalSummary slug={slug} month={month} />}
      <div class="toolbar">
        <Field label={s.state} id={ids.status}>
          {(p) => (
            <select
              {...p}
              value={status}
              onChange={(e) => {
                setStatus(e.currentTarget.value as '' | FiscalStatus);
                setPage(1);
              }}
            >
              <option value="">{s.journal.all}</option>
              {STATUSES.map((st) => (
                <option key={st} value={st}>
                  {s.status[st]}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <Loading loading={docs.loading && !docs.data} error={docs.error} />
      {docs.data && docs.data.data.length === 0 && <p class="empty">{isAdmin ? s.fiscal.empty : s.fiscal.emptyAccountant}</p>}
      {docs.data && docs.data.data.length > 0 && (
        <div class="books-scroll" tabIndex={0} role="region" aria-label={s.scrollTable}>
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{s.fiscal.number}</th>
                <th scope="col">{s.fiscal.type}</th>
                <th scope="col">{s.fiscal.order}</th>
                <th scope="col" class="num">{s.amount}</th>
                <th scope="col">{s.fiscal.emittedAt}</th>
                <th scope="col">{s.state}</th>
                <th scope="col">{s.actions}</th>
              </tr>
            </thead>
            <tbody>
              {docs.data.data.map((doc) => (
                <tr key={doc._id}>
                  <th scope="row">
                    {doc.nfeNumber}/{doc.serie}
                  </th>
                  <td>{s.fiscal.types[doc.tipo] ?? doc.tipo}</td>
                  <td>{doc.order?.orderNumber ?? '—'}</td>
                  <td class="num">{formatMoney(doc.total)}</td>
                  <td>{doc.emittedAt ? formatDateTime(doc.emittedAt) : '—'}</td>
                  <td>
                    <Status value={doc.status} />
                    {doc.errorDetails && <span class="hint"> {doc.errorDetails.message}</span>}
                  </td>
                  <td class="books-actions">
                    {doc.xmlUrl && (
                      <button type="button" class="btn" aria-label={`${s.fiscal.xml} ${doc.nfeNumber}`} onClick={() => file(doc._id, 'xml', doc.nfeNumber)}>
                        {s.fiscal.xml}
                      </button>
                    )}
                    {doc.danfeUrl && (
                      <button type="button" class="btn" aria-label={`${s.fiscal.danfe} ${doc.nfeNumber}`} onClick={() => file(doc._id, 'danfe', doc.nfeNumber)}>
                        {s.fiscal.danfe}
                      </button>
                    )}
                    {isAdmin && doc.status === 'authorized' && (
                      <button type="button" class="btn danger" onClick={() => cancel(doc._id, doc.nfeNumber)}>
                        {s.fiscal.cancel}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {docs.data && <Pager page={page} total={docs.data.total} limit={LIMIT} onPage={setPage} />}
      {isAdmin && (
        <div class="books-grid">
          <Emit
            slug={slug}
            onDone={(m) => {
              setMessage(m);
              docs.reload();
              dash.reload();
            }}
          />
          <Invite slug={slug} />
        </div>
      )}
    </>
  );
}
