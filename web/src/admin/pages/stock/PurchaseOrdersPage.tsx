/**
 * Purchase orders (admin): list by status, a draft with lines (or one generated from the low stock), send,
 * cancel, delete a draft, receive (each received line is an entry movement), and the suggested orders of
 * the demand forecast (approve: a draft is made from it; dismiss) when the plan has it.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { api, call } from '../../api/client.js';
import { callAll, callPage, ShowingOf } from '../../ui/list-page.js';
import type { components } from '../../api/schema.js';
import type { PageProps } from '../../types.js';
import { Field, fieldId } from '../../ui/Field.js';
import { formatDateTime, formatDay, formatMoney } from '../../ui/format.js';
import { Pager } from '../../ui/Pager.js';
import { centsText, errorText, formatQty, parseCents, parseDecimal, threeDecimals } from './lib.js';
import { s } from './strings.js';
import './stock.css';

type Order = components['schemas']['PurchaseOrder'];
type Item = components['schemas']['InventoryItem'];
type Supplier = components['schemas']['Supplier'];
type Status = Order['status'];
type Suggestion = {
  _id: string;
  status: string;
  totalCost: number;
  createdAt: string;
  items: { inventoryItemId: string; itemName: string; suggestedOrder: number; unit: string }[];
};

const LIMIT = 15;
const ids = { status: fieldId('po-status') };

export default function PurchaseOrdersPage({ slug }: PageProps) {
  const [orders, setOrders] = useState<Order[] | null>(null);
  const [total, setTotal] = useState(0);
  const [items, setItems] = useState<Item[]>([]);
  const [suppliers, setSuppliers] = useState<Supplier[]>([]);
  const [status, setStatus] = useState<Status | ''>('');
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const [receiving, setReceiving] = useState<Order | null>(null);
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);

  const load = () =>
    callPage(api.GET('/t/{slug}/inventory/purchase-orders', { params: { path: { slug }, query: status ? { status } : {} } }))
      .then(({ rows, total }) => {
        setOrders(rows);
        setTotal(total);
      })
      .catch((err) => setMsg({ ok: false, text: errorText(err, s.loadFailed) }));
  useEffect(() => {
    void load();
  }, [slug, status]);
  useEffect(() => {
    callAll((p) => api.GET('/t/{slug}/inventory', { params: { path: { slug }, query: { page: p } } }))
      .then((l) => setItems(l.filter((i) => i.status === 'active').sort((a, b) => a.name.localeCompare(b.name, 'pt-BR'))))
      .catch(() => {});
    callAll((p) => api.GET('/t/{slug}/inventory/suppliers', { params: { path: { slug }, query: { active: true, page: p } } }))
      .then(setSuppliers)
      .catch(() => {});
  }, [slug]);

  async function act(fn: () => Promise<unknown>, ok: string) {
    setMsg(null);
    try {
      await fn();
      setMsg({ ok: true, text: ok });
      void load();
    } catch (err) {
      setMsg({ ok: false, text: errorText(err, s.failed) });
    }
  }
  const setOrderStatus = (o: Order, next: 'sent' | 'cancelled') =>
    act(() => call(api.PUT('/t/{slug}/inventory/purchase-orders/{id}', { params: { path: { slug, id: o._id } }, body: { status: next } })), s.saved);
  const remove = (o: Order) => act(() => call(api.DELETE('/t/{slug}/inventory/purchase-orders/{id}', { params: { path: { slug, id: o._id } } })), s.saved);
  const fromLow = () =>
    act(async () => {
      const made = await call(api.POST('/t/{slug}/inventory/purchase-orders/generate-from-low-stock', { params: { path: { slug } }, body: {} }));
      if (!made) throw new ApiError(200, 'nothing_low', s.nothingLow);
    }, s.saved);

  const list = orders ?? [];
  return (
    <section class="stock-page">
      <h1>{s.poTitle}</h1>
      <div class="toolbar">
        <Field id={ids.status} label={s.status}>
          {(p) => (
            <select
              {...p}
              value={status}
              onChange={(e) => {
                setStatus(e.currentTarget.value as Status | '');
                setPage(1);
              }}
            >
              <option value="">{s.all}</option>
              {Object.entries(s.poStatuses).map(([k, label]) => (
                <option key={k} value={k}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
        {!creating && (
          <button type="button" class="btn primary" onClick={() => setCreating(true)}>
            {s.newPo}
          </button>
        )}
        <button type="button" class="btn" onClick={() => void fromLow()}>
          {s.fromLowStock}
        </button>
      </div>
      {msg && (
        <p class={msg.ok ? 'notice' : 'form-error'} role={msg.ok ? 'status' : 'alert'}>
          {msg.text}
        </p>
      )}
      {creating && (
        <OrderForm
          slug={slug}
          items={items}
          suppliers={suppliers}
          onCancel={() => setCreating(false)}
          onDone={() => {
            setCreating(false);
            void load();
          }}
        />
      )}
      {receiving && (
        <ReceiveForm
          key={receiving._id}
          slug={slug}
          order={receiving}
          onCancel={() => setReceiving(null)}
          onDone={() => {
            setReceiving(null);
            setMsg({ ok: true, text: s.receivedDone });
            void load();
          }}
        />
      )}
      {orders === null ? (
        <p aria-busy="true">{s.loading}</p>
      ) : list.length === 0 ? (
        <p class="empty">{s.noPos}</p>
      ) : (
        <>
          <div class="table-scroll">
            <table class="data" data-testid="purchase-orders">
              <thead>
                <tr>
                  <th scope="col">{s.poNumber}</th>
                  <th scope="col">{s.supplier}</th>
                  <th scope="col">{s.lines}</th>
                  <th scope="col" class="num">
                    {s.total}
                  </th>
                  <th scope="col">{s.delivery}</th>
                  <th scope="col">{s.status}</th>
                  <th scope="col">{s.actions}</th>
                </tr>
              </thead>
              <tbody>
                {list.slice((page - 1) * LIMIT, page * LIMIT).map((o) => (
                  <tr key={o._id}>
                    <td>
                      {o.orderNumber}
                      <div class="hint">{formatDateTime(o.createdAt)}</div>
                    </td>
                    <td>{o.supplier?.name ?? s.noSupplier}</td>
                    <td>
                      {o.items.map((l) => (
                        <div key={l.inventoryItemId}>
                          {l.itemName}: {formatQty(l.receivedQuantity)}/{formatQty(l.quantity)}
                        </div>
                      ))}
                    </td>
                    <td class="num">{formatMoney(o.totalCost)}</td>
                    <td>{o.expectedDelivery ? formatDay(o.expectedDelivery) : '—'}</td>
                    <td>{s.poStatuses[o.status] ?? o.status}</td>
                    <td>
                      <div class="toolbar">
                        {o.status === 'draft' && (
                          <button type="button" class="btn small" onClick={() => void setOrderStatus(o, 'sent')}>
                            {s.send}
                          </button>
                        )}
                        {(o.status === 'sent' || o.status === 'partial' || o.status === 'draft') && (
                          <button type="button" class="btn small primary" onClick={() => setReceiving(o)} aria-label={`${s.receive} ${o.orderNumber}`}>
                            {s.receive}
                          </button>
                        )}
                        {(o.status === 'draft' || o.status === 'sent') && (
                          <button type="button" class="btn small" onClick={() => void setOrderStatus(o, 'cancelled')}>
                            {s.cancelPo}
                          </button>
                        )}
                        {o.status === 'draft' && (
                          <button type="button" class="btn small danger" onClick={() => void remove(o)}>
                            {s.deletePo}
                          </button>
                        )}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} total={list.length} limit={LIMIT} onPage={setPage} />
          <ShowingOf shown={orders?.length ?? 0} total={total} />
        </>
      )}
      <Suggestions slug={slug} onApproved={() => void load()} />
    </section>
  );
}

type Line = { item: string; qty: string; cost: string };

type OrderFormProps = { slug: string; items: Item[]; suppliers: Supplier[]; onDone: () => void; onCancel: () => void };

function OrderForm({ slug, items, suppliers, onDone, onCancel }: OrderFormProps) {
  const [ids] = useState(() => ({ supplier: fieldId('po-sup'), delivery: fieldId('po-del'), notes: fieldId('po-notes'), line: fieldId('po-line') }));
  const [supplier, setSupplier] = useState('');
  const [delivery, setDelivery] = useState('');
  const [notes, setNotes] = useState('');
  const [lines, setLines] = useState<Line[]>([{ item: '', qty: '', cost: '' }]);
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const setLine = (i: number, patch: Partial<Line>) => setLines((ls) => ls.map((l, j) => (j === i ? { ...l, ...patch } : l)));

  async function submit(e: Event) {
    e.preventDefault();
    const errs: Record<string, string> = {};
    const seen = new Set<string>();
    const body = lines.map((l, i) => {
      if (!l.item) errs[`items.${i}.inventoryItemId`] = s.required;
      else if (seen.has(l.item)) errs[`items.${i}.inventoryItemId`] = 'Item repetido.';
      seen.add(l.item);
      const qty = parseDecimal(l.qty);
      if (qty === null || !threeDecimals(qty) || qty <= 0) errs[`items.${i}.quantity`] = s.positive;
      const cost = parseCents(l.cost);
      if (cost === null) errs[`items.${i}.unitCost`] = s.badMoney;
      return { inventoryItemId: l.item, quantity: qty ?? 0, unitCost: cost ?? 0 };
    });
    setErrors(errs);
    setFormError(null);
    if (Object.keys(errs).length) return;
    setBusy(true);
    try {
      await call(
        api.POST('/t/{slug}/inventory/purchase-orders', {
          params: { path: { slug } },
          body: { supplierId: supplier || null, items: body, expectedDelivery: delivery || null, notes: notes.trim() || null },
        }),
      );
      onDone();
    } catch (err) {
      if (err instanceof ApiError) {
        const next: Record<string, string | undefined> = { supplierId: err.fieldMessage('supplierId'), expectedDelivery: err.fieldMessage('expectedDelivery') };
        lines.forEach((_, i) => {
          for (const f of ['inventoryItemId', 'quantity', 'unitCost']) {
            next[`items.${i}.${f}`] = err.fieldMessage(`items.${i}.${f}`) ?? err.fieldMessage(`items/${i}/${f}`);
          }
        });
        setErrors(next);
      }
      setFormError(errorText(err, s.failed));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="card stock-form" noValidate onSubmit={submit} aria-label={s.newPo}>
      <h2>{s.newPo}</h2>
      <div class="grid">
        <Field id={ids.supplier} label={s.supplier} error={errors.supplierId}>
          {(p) => (
            <select {...p} value={supplier} onChange={(e) => setSupplier(e.currentTarget.value)}>
              <option value="">{s.noSupplier}</option>
              {suppliers.map((x) => (
                <option key={x._id} value={x._id}>
                  {x.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id={ids.delivery} label={s.delivery} error={errors.expectedDelivery}>
          {(p) => <input {...p} type="date" value={delivery} onInput={(e) => setDelivery(e.currentTarget.value)} />}
        </Field>
      </div>
      <fieldset class="po-lines">
        <legend>{s.lines}</legend>
        {lines.map((l, i) => (
          <div class="po-line" key={i}>
            <Field id={`${ids.line}-${i}-item`} label={`${s.item} ${i + 1}`} error={errors[`items.${i}.inventoryItemId`]}>
              {(p) => (
                <select
                  {...p}
                  value={l.item}
                  onChange={(e) => {
                    const it = items.find((x) => x._id === e.currentTarget.value);
                    setLine(i, { item: e.currentTarget.value, cost: l.cost || (it ? centsText(it.cost) : '') });
                  }}
                >
                  <option value="">{s.chooseItem}</option>
                  {items.map((x) => (
                    <option key={x._id} value={x._id}>
                      {x.name} ({s.units[x.unit] ?? x.unit})
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field id={`${ids.line}-${i}-qty`} label={s.quantity} error={errors[`items.${i}.quantity`]}>
              {(p) => <input {...p} inputMode="decimal" value={l.qty} onInput={(e) => setLine(i, { qty: e.currentTarget.value })} />}
            </Field>
            <Field id={`${ids.line}-${i}-cost`} label={s.unitCost} error={errors[`items.${i}.unitCost`]}>
              {(p) => <input {...p} inputMode="decimal" value={l.cost} onInput={(e) => setLine(i, { cost: e.currentTarget.value })} />}
            </Field>
            <button type="button" class="btn" disabled={lines.length === 1} onClick={() => setLines((ls) => ls.filter((_, j) => j !== i))} aria-label={`${s.removeLine} ${i + 1}`}>
              {s.removeLine}
            </button>
          </div>
        ))}
        <div>
          <button type="button" class="btn" onClick={() => setLines((ls) => [...ls, { item: '', qty: '', cost: '' }])}>
            {s.addLine}
          </button>
        </div>
      </fieldset>
      <Field id={ids.notes} label={s.notes}>
        {(p) => <input {...p} maxLength={1000} value={notes} onInput={(e) => setNotes(e.currentTarget.value)} />}
      </Field>
      {formError && (
        <p class="form-error" role="alert">
          {formError}
        </p>
      )}
      <div class="toolbar">
        <button type="submit" class="btn primary" disabled={busy}>
          {s.createPo}
        </button>
        <button type="button" class="btn" onClick={onCancel}>
          {s.cancel}
        </button>
      </div>
    </form>
  );
}

function ReceiveForm({ slug, order, onDone, onCancel }: { slug: string; order: Order; onDone: () => void; onCancel: () => void }) {
  const [base] = useState(() => fieldId('rc'));
  const [qty, setQty] = useState<Record<string, string>>(() =>
    Object.fromEntries(order.items.map((l) => [l.inventoryItemId, String(Math.max(0, l.quantity - l.receivedQuantity)).replace('.', ',')])),
  );
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    const errs: Record<string, string> = {};
    const lines: { inventoryItemId: string; receivedQuantity: number }[] = [];
    for (const l of order.items) {
      const text = (qty[l.inventoryItemId] ?? '').trim();
      if (!text) continue;
      const n = parseDecimal(text);
      if (n === null || n < 0 || !threeDecimals(n)) errs[l.inventoryItemId] = s.badNumber;
      else if (n > l.quantity - l.receivedQuantity + 1e-9) errs[l.inventoryItemId] = `Máximo ${formatQty(l.quantity - l.receivedQuantity)}.`;
      else if (n > 0) lines.push({ inventoryItemId: l.inventoryItemId, receivedQuantity: n });
    }
    setErrors(errs);
    setFormError(Object.keys(errs).length === 0 && lines.length === 0 ? s.nothingToReceive : null);
    if (Object.keys(errs).length || lines.length === 0) return;
    setBusy(true);
    try {
      await call(api.POST('/t/{slug}/inventory/purchase-orders/{id}/receive', { params: { path: { slug, id: order._id } }, body: { items: lines } }));
      onDone();
    } catch (err) {
      if (err instanceof ApiError) {
        const next: Record<string, string | undefined> = {};
        lines.forEach((l, i) => (next[l.inventoryItemId] = err.fieldMessage(`items.${i}.receivedQuantity`)));
        setErrors(next);
      }
      setFormError(errorText(err, s.failed));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="card stock-form" noValidate onSubmit={submit} aria-label={s.receiveTitle(order.orderNumber)}>
      <h2>{s.receiveTitle(order.orderNumber)}</h2>
      {order.items.map((l) => (
        <Field
          key={l.inventoryItemId}
          id={`${base}-${l.inventoryItemId}`}
          label={`${l.itemName} (${s.ordered} ${formatQty(l.quantity)}, ${s.received} ${formatQty(l.receivedQuantity)})`}
          error={errors[l.inventoryItemId]}
        >
          {(p) => <input {...p} inputMode="decimal" value={qty[l.inventoryItemId]} onInput={(e) => setQty({ ...qty, [l.inventoryItemId]: e.currentTarget.value })} />}
        </Field>
      ))}
      {formError && (
        <p class="form-error" role="alert">
          {formError}
        </p>
      )}
      <div class="toolbar">
        <button type="submit" class="btn primary" disabled={busy}>
          {s.confirmReceive}
        </button>
        <button type="button" class="btn" onClick={onCancel}>
          {s.cancel}
        </button>
      </div>
    </form>
  );
}

function Suggestions({ slug, onApproved }: { slug: string; onApproved: () => void }) {
  const [list, setList] = useState<Suggestion[] | null>(null);
  const [unavailable, setUnavailable] = useState(false);
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const load = () =>
    call(api.GET('/t/{slug}/inventory/predictions/suggested-orders', { params: { path: { slug } } }))
      .then((l) => setList(l as Suggestion[]))
      .catch((err) => {
        if (err instanceof ApiError && err.status === 403) setUnavailable(true);
        else setMsg({ ok: false, text: errorText(err, s.loadFailed) });
      });
  useEffect(() => {
    void load();
  }, [slug]);

  async function generate() {
    setMsg(null);
    try {
      const made = await call(api.POST('/t/{slug}/inventory/predictions/generate', { params: { path: { slug } } }));
      if (!made) setMsg({ ok: true, text: s.noSuggestionNeeded });
      void load();
    } catch (err) {
      setMsg({ ok: false, text: errorText(err, s.failed) });
    }
  }
  async function decide(id: string, action: 'approve' | 'dismiss') {
    setMsg(null);
    try {
      await call(api.PUT('/t/{slug}/inventory/predictions/suggested-orders/{id}/{action}', { params: { path: { slug, id, action } } }));
      void load();
      if (action === 'approve') onApproved();
    } catch (err) {
      setMsg({ ok: false, text: errorText(err, s.failed) });
    }
  }

  const pending = (list ?? []).filter((x) => x.status === 'pending');
  return (
    <section aria-labelledby="sugg-title">
      <h2 id="sugg-title">{s.suggestionsTitle}</h2>
      {unavailable ? (
        <p class="empty">{s.suggestionsUnavailable}</p>
      ) : (
        <>
          <div class="toolbar">
            <button type="button" class="btn" onClick={() => void generate()}>
              {s.generateSuggestion}
            </button>
          </div>
          {msg && (
            <p class={msg.ok ? 'notice' : 'form-error'} role={msg.ok ? 'status' : 'alert'}>
              {msg.text}
            </p>
          )}
          {list !== null && pending.length === 0 ? (
            <p class="empty">{s.noSuggestions}</p>
          ) : (
            <ul class="alerts-list">
              {pending.map((x) => (
                <li key={x._id} class="card">
                  <span>
                    {formatDateTime(x.createdAt)} · {formatMoney(x.totalCost)} ·{' '}
                    {x.items.map((i) => `${i.itemName} ${formatQty(i.suggestedOrder)} ${s.units[i.unit] ?? i.unit}`).join(', ')}
                  </span>
                  <span class="toolbar">
                    <button type="button" class="btn small primary" onClick={() => void decide(x._id, 'approve')}>
                      {s.approve}
                    </button>
                    <button type="button" class="btn small" onClick={() => void decide(x._id, 'dismiss')}>
                      {s.dismiss}
                    </button>
                  </span>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
