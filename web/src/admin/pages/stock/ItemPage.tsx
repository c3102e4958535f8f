/**
 * One stock item: its figures, edit (admin), its movements a page at a time, recording a movement
 * (entry, exit, loss, count...) and a write-off label to print (admin: PDF download).
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { api, call } from '../../api/client.js';
import { callAll } from '../../ui/list-page.js';
import type { components } from '../../api/schema.js';
import type { PageProps } from '../../types.js';
import { Field, fieldId } from '../../ui/Field.js';
import { formatDateTime, formatDay, formatMoney } from '../../ui/format.js';
import { Link } from '../../ui/Link.js';
import { Pager } from '../../ui/Pager.js';
import { ItemForm } from './ItemForm.js';
import { download, errorText, formatQty, parseCents, parseDecimal, threeDecimals } from './lib.js';
import { s } from './strings.js';
import './stock.css';

type Item = components['schemas']['InventoryItem'];
type Movement = components['schemas']['InventoryMovement'];
type MoveType = 'entry' | 'exit' | 'adjustment';
type Reason = Movement['reason'];

const LIMIT = 20;
/** The reasons the API accepts for each movement type (MovementBody). */
const REASONS: Record<MoveType, Reason[]> = {
  entry: ['purchase', 'production', 'return', 'adjustment'],
  exit: ['loss', 'theft', 'expiration', 'sale', 'production', 'adjustment'],
  adjustment: ['adjustment'],
};
const LABEL_REASONS = ['loss', 'theft', 'expiration', 'adjustment'] as const;

export default function ItemPage({ slug, role, params }: PageProps) {
  const id = params.id;
  const [item, setItem] = useState<Item | null | undefined>(undefined);
  const [moves, setMoves] = useState<{ data: Movement[]; total: number } | null>(null);
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const isAdmin = role === 'admin' || role === 'superadmin';

  const loadItem = () =>
    callAll((p) => api.GET('/t/{slug}/inventory', { params: { path: { slug }, query: { page: p } } }))
      .then((list) => setItem(list.find((i) => i._id === id) ?? null))
      .catch((err) => setError(errorText(err, s.loadFailed)));
  const loadMoves = (p = page) =>
    call(api.GET('/t/{slug}/inventory/{id}/movements', { params: { path: { slug, id }, query: { page: p, limit: LIMIT } } }))
      .then(setMoves)
      .catch((err) => setError(errorText(err, s.loadFailed)));

  useEffect(() => {
    void loadItem();
  }, [slug, id]);
  useEffect(() => {
    void loadMoves(page);
  }, [slug, id, page]);

  if (item === undefined) return error ? <p role="alert">{error}</p> : <p aria-busy="true">{s.loading}</p>;
  if (item === null)
    return (
      <section class="stock-page">
        <h1>{s.itemNotFound}</h1>
        <Link href={`/admin/t/${slug}/stock`}>{s.back}</Link>
      </section>
    );
  const unit = s.units[item.unit] ?? item.unit;

  return (
    <section class="stock-page">
      <p>
        <Link href={`/admin/t/${slug}/stock`}>← {s.back}</Link>
      </p>
      <h1>{item.name}</h1>
      <ul class="stats" aria-label="Resumo do item">
        <li class="card">
          <strong data-testid="item-stock">
            {formatQty(item.currentStock)} {unit}
          </strong>
          <span>{s.stock}</span>
        </li>
        <li class="card">
          <strong>
            {formatQty(item.availableQuantity)} {unit}
          </strong>
          <span>{s.available}</span>
        </li>
        <li class="card">
          <strong>
            {formatQty(item.minStock)} {unit}
          </strong>
          <span>{s.min}</span>
        </li>
        <li class="card">
          <strong>{formatMoney(item.cost)}</strong>
          <span>{s.costCol}</span>
        </li>
      </ul>
      <p class="hint">
        {s.sku} {item.sku}
        {item.ean ? ` · EAN ${item.ean}` : ''}
        {item.expirationDate ? ` · ${s.expiration} ${formatDay(item.expirationDate)}` : ''} · {s.statuses[item.status] ?? item.status}
      </p>
      {isAdmin &&
        (editing ? (
          <ItemForm
            slug={slug}
            item={item}
            onCancel={() => setEditing(false)}
            onDone={(saved) => {
              setItem(saved);
              setEditing(false);
            }}
          />
        ) : (
          <div class="toolbar">
            <button type="button" class="btn" onClick={() => setEditing(true)}>
              {s.editItem}
            </button>
          </div>
        ))}
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}

      <div class="stock-columns">
        <MovementForm
          slug={slug}
          item={item}
          onDone={() => {
            void loadItem();
            setPage(1);
            void loadMoves(1);
          }}
        />
        {isAdmin && <LabelForm slug={slug} item={item} />}
      </div>

      <h2>{s.movements}</h2>
      {moves === null ? (
        <p aria-busy="true">{s.loading}</p>
      ) : moves.data.length === 0 ? (
        <p class="empty">{s.noMovements}</p>
      ) : (
        <>
          <div class="table-scroll">
            <table class="data" data-testid="item-movements">
              <thead>
                <tr>
                  <th scope="col">{s.when}</th>
                  <th scope="col">{s.type}</th>
                  <th scope="col">{s.reason}</th>
                  <th scope="col" class="num">
                    {s.quantity}
                  </th>
                  <th scope="col" class="num">
                    {s.before}
                  </th>
                  <th scope="col" class="num">
                    {s.after}
                  </th>
                  <th scope="col" class="num">
                    {s.costCol}
                  </th>
                  <th scope="col">{s.notes}</th>
                </tr>
              </thead>
              <tbody>
                {moves.data.map((m) => (
                  <tr key={m._id}>
                    <td>{formatDateTime(m.createdAt)}</td>
                    <td>{s.types[m.type] ?? m.type}</td>
                    <td>{s.reasons[m.reason] ?? m.reason}</td>
                    <td class="num">{formatQty(m.delta !== 0 ? m.delta : m.quantity)}</td>
                    <td class="num">{formatQty(m.before)}</td>
                    <td class="num">{formatQty(m.after)}</td>
                    <td class="num">{m.unitCost !== null ? formatMoney(m.unitCost) : '—'}</td>
                    <td>{m.notes ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} total={moves.total} limit={LIMIT} onPage={setPage} />
        </>
      )}
    </section>
  );
}

function MovementForm({ slug, item, onDone }: { slug: string; item: Item; onDone: () => void }) {
  const [ids] = useState(() => ({ type: fieldId('mv-type'), reason: fieldId('mv-reason'), qty: fieldId('mv-qty'), cost: fieldId('mv-cost'), notes: fieldId('mv-notes') }));
  const [type, setType] = useState<MoveType>('entry');
  const [reason, setReason] = useState<Reason>('purchase');
  const [qty, setQty] = useState('');
  const [cost, setCost] = useState('');
  const [notes, setNotes] = useState('');
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    const errs: Record<string, string> = {};
    const n = parseDecimal(qty);
    if (n === null || !threeDecimals(n) || n < 0) errs.quantity = s.badNumber;
    else if (type !== 'adjustment' && n <= 0) errs.quantity = s.positive;
    const unitCost = type === 'entry' && cost.trim() ? parseCents(cost) : null;
    if (type === 'entry' && cost.trim() && unitCost === null) errs.unitCost = s.badMoney;
    setErrors(errs);
    setMsg(null);
    if (Object.keys(errs).length) return;
    setBusy(true);
    try {
      await call(
        api.POST('/t/{slug}/inventory/{id}/movements', {
          params: { path: { slug, id: item._id } },
          body: { type, reason, quantity: n!, notes: notes.trim() || null, ...(type === 'entry' ? { unitCost } : {}) },
        }),
      );
      setQty('');
      setCost('');
      setNotes('');
      setMsg({ ok: true, text: s.recorded });
      onDone();
    } catch (err) {
      if (err instanceof ApiError) setErrors({ quantity: err.fieldMessage('quantity'), unitCost: err.fieldMessage('unitCost'), notes: err.fieldMessage('notes') });
      setMsg({ ok: false, text: errorText(err, s.failed) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="card stock-form" noValidate onSubmit={submit} aria-labelledby="mv-title">
      <h2 id="mv-title">{s.recordMovement}</h2>
      <div class="grid">
        <Field id={ids.type} label={s.type}>
          {(p) => (
            <select
              {...p}
              value={type}
              onChange={(e) => {
                const t = e.currentTarget.value as MoveType;
                setType(t);
                setReason(REASONS[t][0]);
              }}
            >
              {(['entry', 'exit', 'adjustment'] as const).map((t) => (
                <option key={t} value={t}>
                  {s.types[t]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id={ids.reason} label={s.reason}>
          {(p) => (
            <select {...p} value={reason} onChange={(e) => setReason(e.currentTarget.value as Reason)}>
              {REASONS[type].map((r) => (
                <option key={r} value={r}>
                  {s.reasons[r]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id={ids.qty} label={`${type === 'adjustment' ? s.countedQty : s.quantity} (${s.units[item.unit] ?? item.unit})`} error={errors.quantity}>
          {(p) => <input {...p} inputMode="decimal" value={qty} onInput={(e) => setQty(e.currentTarget.value)} />}
        </Field>
        {type === 'entry' && (
          <Field id={ids.cost} label={s.unitCost} error={errors.unitCost}>
            {(p) => <input {...p} inputMode="decimal" placeholder="0,00" value={cost} onInput={(e) => setCost(e.currentTarget.value)} />}
          </Field>
        )}
      </div>
      <Field id={ids.notes} label={s.notes} error={errors.notes}>
        {(p) => <input {...p} maxLength={500} value={notes} onInput={(e) => setNotes(e.currentTarget.value)} />}
      </Field>
      {msg && (
        <p class={msg.ok ? 'notice' : 'form-error'} role={msg.ok ? 'status' : 'alert'}>
          {msg.text}
        </p>
      )}
      <button type="submit" class="btn primary" disabled={busy}>
        {s.record}
      </button>
    </form>
  );
}

function LabelForm({ slug, item }: { slug: string; item: Item }) {
  const [ids] = useState(() => ({ qty: fieldId('lb-qty'), reason: fieldId('lb-reason'), notes: fieldId('lb-notes') }));
  const [qty, setQty] = useState('');
  const [reason, setReason] = useState<(typeof LABEL_REASONS)[number]>('loss');
  const [notes, setNotes] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    const n = parseDecimal(qty);
    const problem = n === null || !threeDecimals(n) ? s.badNumber : n <= 0 ? s.positive : undefined;
    setError(problem);
    setMsg(null);
    if (problem) return;
    setBusy(true);
    try {
      const label = await call(
        api.POST('/t/{slug}/inventory/labels', { params: { path: { slug } }, body: { itemId: item._id, quantity: n!, reason, ...(notes.trim() ? { notes: notes.trim() } : {}) } }),
      );
      await download(`/t/${encodeURIComponent(slug)}/inventory/labels/${label._id}/label.pdf`, `etiqueta-${item.sku}.pdf`);
      setMsg({ ok: true, text: s.labelDone });
      setQty('');
    } catch (err) {
      if (err instanceof ApiError) setError(err.fieldMessage('quantity'));
      setMsg({ ok: false, text: errorText(err, s.failed) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="card stock-form" noValidate onSubmit={submit} aria-labelledby="lb-title">
      <h2 id="lb-title">{s.labelsTitle}</h2>
      <p class="hint">{s.labelsIntro}</p>
      <div class="grid">
        <Field id={ids.qty} label={`${s.quantity} (${s.units[item.unit] ?? item.unit})`} error={error}>
          {(p) => <input {...p} inputMode="decimal" value={qty} onInput={(e) => setQty(e.currentTarget.value)} />}
        </Field>
        <Field id={ids.reason} label={s.reason}>
          {(p) => (
            <select {...p} value={reason} onChange={(e) => setReason(e.currentTarget.value as (typeof LABEL_REASONS)[number])}>
              {LABEL_REASONS.map((r) => (
                <option key={r} value={r}>
                  {s.reasons[r]}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <Field id={ids.notes} label={s.notes}>
        {(p) => <input {...p} maxLength={500} value={notes} onInput={(e) => setNotes(e.currentTarget.value)} />}
      </Field>
      {msg && (
        <p class={msg.ok ? 'notice' : 'form-error'} role={msg.ok ? 'status' : 'alert'}>
          {msg.text}
        </p>
      )}
      <button type="submit" class="btn" disabled={busy}>
        {s.makeLabel}
      </button>
    </form>
  );
}
