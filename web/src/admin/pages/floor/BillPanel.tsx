/** The bill of a tab: lines with options, voids and discounts, the totals; service charge, discount and void actions. */
import { useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { api, call } from '../../api/client.js';
import { formatMoney } from '../../ui/format.js';
import { describe, parseMoney, type Order } from './data.js';
import { strings as t } from './strings.js';

function VoidForm({ slug, order, onDone }: { slug: string; order: Order; onDone: (o: Order) => void }) {
  const [line, setLine] = useState('');
  const [qty, setQty] = useState('1');
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [failed, setFailed] = useState<string | null>(null);
  async function submit(e: Event) {
    e.preventDefault();
    const q = Number(qty.replace(',', '.'));
    const found = { line: line === '' ? t.requiredField : undefined, quantity: q > 0 ? undefined : t.positive, reason: reason.trim() ? undefined : t.requiredField };
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;
    try {
      onDone(await call(api.POST('/t/{slug}/orders/{id}/void', { params: { path: { slug, id: order._id } }, body: { line: Number(line), quantity: q, reason: reason.trim() } })));
      setReason('');
      setFailed(null);
    } catch (err) {
      if (err instanceof ApiError) setErrors({ line: err.fieldMessage('line'), quantity: err.fieldMessage('quantity'), reason: err.fieldMessage('reason') });
      setFailed(describe(err));
    }
  }
  return (
    <form class="inline-form" onSubmit={submit} noValidate>
      <div class={`field${errors.line ? ' field-invalid' : ''}`}>
        <label for="void-line">{t.item}</label>
        <select id="void-line" value={line} onChange={(e) => setLine(e.currentTarget.value)} aria-invalid={errors.line ? 'true' : undefined}>
          <option value="">—</option>
          {order.items.map((l, i) => (
            <option key={i} value={String(i)} disabled={l.quantity - (l.voidedQuantity ?? 0) <= 0}>
              {l.quantity - (l.voidedQuantity ?? 0)} × {l.name}
            </option>
          ))}
        </select>
        {errors.line && <p class="field-error">{errors.line}</p>}
      </div>
      <div class={`field${errors.quantity ? ' field-invalid' : ''}`}>
        <label for="void-qty">{t.voidQty}</label>
        <input id="void-qty" inputMode="decimal" value={qty} onInput={(e) => setQty(e.currentTarget.value)} aria-invalid={errors.quantity ? 'true' : undefined} />
        {errors.quantity && <p class="field-error">{errors.quantity}</p>}
      </div>
      <div class={`field${errors.reason ? ' field-invalid' : ''}`}>
        <label for="void-reason">{t.voidReason}</label>
        <input id="void-reason" maxLength={200} value={reason} onInput={(e) => setReason(e.currentTarget.value)} aria-invalid={errors.reason ? 'true' : undefined} />
        {errors.reason && <p class="field-error">{errors.reason}</p>}
      </div>
      <button type="submit" class="btn">
        {t.voidLine}
      </button>
      {failed && (
        <p class="form-error" role="alert">
          {failed}
        </p>
      )}
    </form>
  );
}

function DiscountForm({ slug, order, onDone }: { slug: string; order: Order; onDone: (o: Order) => void }) {
  const [kind, setKind] = useState<'percent' | 'amount'>('percent');
  const [value, setValue] = useState('');
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [failed, setFailed] = useState<string | null>(null);
  async function submit(e: Event) {
    e.preventDefault();
    const v = kind === 'amount' ? parseMoney(value) : Number(value.replace(',', '.'));
    const found = {
      value: v === null || !(v > 0) || (kind === 'percent' && v > 100) ? t.positive : undefined,
      reason: reason.trim() ? undefined : t.requiredField,
    };
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;
    try {
      onDone(await call(api.PUT('/t/{slug}/orders/{id}/discount', { params: { path: { slug, id: order._id } }, body: { kind, value: v!, reason: reason.trim() } })));
      setValue('');
      setReason('');
      setFailed(null);
    } catch (err) {
      if (err instanceof ApiError) setErrors({ value: err.fieldMessage('value'), reason: err.fieldMessage('reason') });
      setFailed(describe(err));
    }
  }
  async function remove() {
    try {
      onDone(await call(api.DELETE('/t/{slug}/orders/{id}/discount', { params: { path: { slug, id: order._id }, query: {} } })));
    } catch (err) {
      setFailed(describe(err));
    }
  }
  return (
    <form class="inline-form" onSubmit={submit} noValidate>
      <div class="field">
        <label for="disc-kind">{t.discountKind}</label>
        <select id="disc-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as 'percent' | 'amount')}>
          <option value="percent">{t.percent}</option>
          <option value="amount">{t.amountCents}</option>
        </select>
      </div>
      <div class={`field${errors.value ? ' field-invalid' : ''}`}>
        <label for="disc-value">{t.discountValue}</label>
        <input id="disc-value" inputMode="decimal" value={value} onInput={(e) => setValue(e.currentTarget.value)} aria-invalid={errors.value ? 'true' : undefined} />
        {errors.value && <p class="field-error">{errors.value}</p>}
      </div>
      <div class={`field${errors.reason ? ' field-invalid' : ''}`}>
        <label for="disc-reason">{t.reason}</label>
        <input id="disc-reason" maxLength={200} value={reason} onInput={(e) => setReason(e.currentTarget.value)} aria-invalid={errors.reason ? 'true' : undefined} />
        {errors.reason && <p class="field-error">{errors.reason}</p>}
      </div>
      <button type="submit" class="btn">
        {t.applyDiscount}
      </button>
      {order.discount && (
        <button type="button" class="btn" onClick={() => void remove()}>
          {t.removeDiscount}
        </button>
      )}
      {failed && (
        <p class="form-error" role="alert">
          {failed}
        </p>
      )}
    </form>
  );
}

export function BillPanel({ slug, order, onChange, editable }: { slug: string; order: Order; onChange: (o: Order) => void; editable: boolean }) {
  const [failed, setFailed] = useState<string | null>(null);
  async function toggleService() {
    try {
      onChange(await call(api.PUT('/t/{slug}/orders/{id}/bill', { params: { path: { slug, id: order._id } }, body: { serviceChargeRemoved: !order.serviceChargeRemoved } })));
      setFailed(null);
    } catch (err) {
      setFailed(describe(err));
    }
  }
  return (
    <div>
      <table class="data" data-testid="bill">
        <caption class="sr-only">
          {t.bill} #{order.orderNumber}
        </caption>
        <thead>
          <tr>
            <th scope="col">{t.item}</th>
            <th scope="col" class="num">
              {t.qty}
            </th>
            <th scope="col" class="num">
              {t.amount}
            </th>
          </tr>
        </thead>
        <tbody>
          {order.items.map((l, i) => (
            <tr key={i}>
              <td>
                {l.name}
                {l.modifiers?.map((m) => (
                  <span class="bill-mods" key={m.groupId}>
                    {m.groupName}: {m.options.map((o) => o.name).join(', ')}
                  </span>
                ))}
                {l.notes && <span class="bill-mods">{l.notes}</span>}
                {l.voidedQuantity ? <span class="bill-mods">{t.voided(l.voidedQuantity)}</span> : null}
                {l.discountAmount ? (
                  <span class="bill-mods">
                    {t.discount}: − {formatMoney(l.discountAmount)}
                  </span>
                ) : null}
              </td>
              <td class="num">{l.quantity - (l.voidedQuantity ?? 0)}</td>
              <td class="num">{formatMoney(l.amount ?? Math.round(l.price * l.quantity))}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <table class="totals">
        <tbody>
          <tr>
            <td>{t.itemsTotal}</td>
            <td class="num">{formatMoney(order.itemsTotal)}</td>
          </tr>
          {order.discountTotal > 0 && (
            <tr>
              <td>{t.discount}</td>
              <td class="num">− {formatMoney(order.discountTotal)}</td>
            </tr>
          )}
          {(order.serviceChargePercent > 0 || order.serviceChargeRemoved) && (
            <tr>
              <td>{t.serviceCharge(order.serviceChargePercent)}</td>
              <td class="num">{formatMoney(order.serviceCharge)}</td>
            </tr>
          )}
          {order.coverCharge > 0 && (
            <tr>
              <td>{t.coverCharge}</td>
              <td class="num">{formatMoney(order.coverCharge)}</td>
            </tr>
          )}
          <tr class="grand">
            <td>{t.total}</td>
            <td class="num" data-testid="bill-total">
              {formatMoney(order.total)}
            </td>
          </tr>
          {order.amountPaid > 0 && (
            <>
              <tr>
                <td>{t.paid}</td>
                <td class="num">{formatMoney(order.amountPaid)}</td>
              </tr>
              <tr>
                <td>{t.due}</td>
                <td class="num">{formatMoney(order.amountDue)}</td>
              </tr>
            </>
          )}
        </tbody>
      </table>
      {editable && (
        <>
          {(order.serviceChargePercent > 0 || order.serviceChargeRemoved) && (
            <div class="actions">
              <button type="button" class="btn" onClick={() => void toggleService()}>
                {order.serviceChargeRemoved ? t.restoreService : t.removeService}
              </button>
            </div>
          )}
          {failed && (
            <p class="form-error" role="alert">
              {failed}
            </p>
          )}
          <details class="card" style="margin-top:0.75rem">
            <summary>{t.discountTitle}</summary>
            <DiscountForm slug={slug} order={order} onDone={onChange} />
          </details>
          <details class="card" style="margin-top:0.75rem">
            <summary>{t.voidLine}</summary>
            <VoidForm slug={slug} order={order} onDone={onChange} />
          </details>
        </>
      )}
      {order.adjustments.length > 0 && (
        <details class="card" style="margin-top:0.75rem">
          <summary>{t.history}</summary>
          <ul>
            {order.adjustments.map((a, i) => (
              <li key={i}>
                {a.detail}
                {a.reason ? ` — ${a.reason}` : ''}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
