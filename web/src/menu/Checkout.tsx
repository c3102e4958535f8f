/** The guest checkout form: name, optional phone and e-mail, dine-in on the QR table or takeout, payment. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, uuid } from '../shared/api.js';
import { formatMoney } from '../shared/money.js';
import { toOrderLine, type CartLine } from './cart.js';
import { strings as t } from './strings.js';
import type { CheckoutOrder, OrderType, PaymentChoice, Storefront } from './types.js';

interface Props {
  slug: string;
  pdvSlug: string;
  store: Storefront;
  lines: CartLine[];
  subtotal: number;
  onBack: () => void;
  onPlaced: (order: CheckoutOrder) => void;
}

type FieldName = 'customerName' | 'customerPhone' | 'customerEmail' | 'orderType' | 'paymentMethod';
const PAYMENTS: PaymentChoice[] = ['pix', 'card', 'cash'];

/** Field errors of a 400 answer (`details`) by form field (`body.customerName` -> customerName); the rest in `other`. */
function fieldErrors(err: ApiError): { fields: Partial<Record<FieldName, string>>; other: string | null } {
  const fields: Partial<Record<FieldName, string>> = {};
  const rest: string[] = [];
  for (const f of err.fields) {
    const name = f.field.replace(/^body\./, '').split('.')[0];
    // The API's messages are English and technical: the page shows its own text for each field.
    if (name in t.invalidField) fields[name as FieldName] ??= t.invalidField[name];
    else rest.push(name === 'items' ? t.itemsChanged : f.message);
  }
  return { fields, other: rest.length ? [...new Set(rest)].join(' ') : Object.keys(fields).length ? null : err.message };
}

export function Checkout({ slug, pdvSlug, store, lines, subtotal, onBack, onPlaced }: Props) {
  const table = store.table;
  const [name, setName] = useState('');
  const [phone, setPhone] = useState('');
  const [email, setEmail] = useState('');
  const [orderType, setOrderType] = useState<OrderType>(table ? 'dine_in' : 'takeout');
  const [payment, setPayment] = useState<PaymentChoice>('pix');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [formError, setFormError] = useState<string | null>(null);
  // One Idempotency-Key per attempt: a retry of the same order (after a lost answer) reuses it.
  const attempt = useRef<{ key: string; body: string } | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => heading.current?.focus(), []);

  const percent = orderType === 'dine_in' ? (store.serviceChargePercent ?? 0) : 0;
  const service = Math.round((subtotal * percent) / 100);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    if (!name.trim()) {
      setErrors({ customerName: t.nameRequired });
      setFormError(t.fixFields);
      document.getElementById('f-name')?.focus();
      return;
    }
    const body = {
      pdv: pdvSlug,
      ...(orderType === 'dine_in' && table ? { table: table.number } : {}),
      customerName: name.trim(),
      ...(phone.trim() ? { customerPhone: phone.trim() } : {}),
      ...(email.trim() ? { customerEmail: email.trim() } : {}),
      items: lines.map(toOrderLine),
      paymentMethod: payment,
      orderType,
    };
    const json = JSON.stringify(body);
    if (attempt.current?.body !== json) attempt.current = { key: uuid(), body: json };
    setBusy(true);
    setErrors({});
    setFormError(null);
    try {
      const order = await api<CheckoutOrder>(`/t/${encodeURIComponent(slug)}/orders`, {
        method: 'POST',
        body,
        headers: { 'idempotency-key': attempt.current.key },
      });
      onPlaced(order);
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) {
        const { fields, other } = fieldErrors(err);
        setErrors(fields);
        setFormError(other ?? t.fixFields);
      } else if (err instanceof ApiError && err.status === 0) {
        setFormError(t.networkFailed);
      } else {
        setFormError(err instanceof ApiError && err.message ? `${t.orderFailed} (${err.message})` : t.orderFailed);
      }
    } finally {
      setBusy(false);
    }
  };

  const fieldProps = (field: FieldName) => ({
    'aria-invalid': errors[field] ? true : undefined,
    'aria-describedby': errors[field] ? `err-${field}` : undefined,
  });
  const fieldError = (field: FieldName) => errors[field] && <p class="error" id={`err-${field}`}>{errors[field]}</p>;

  return (
    <section class="page">
      <button type="button" class="link" onClick={onBack}>← {t.backToMenu}</button>
      <h2 tabIndex={-1} ref={heading}>{t.checkoutTitle}</h2>
      <form onSubmit={submit} noValidate>
        <label class="label" for="f-name">{t.name}</label>
        <input id="f-name" name="customerName" autocomplete="name" required maxLength={120} value={name}
          onInput={(e) => setName(e.currentTarget.value)} {...fieldProps('customerName')} />
        {fieldError('customerName')}

        <label class="label" for="f-phone">{t.phone}</label>
        <input id="f-phone" name="customerPhone" type="tel" autocomplete="tel" inputMode="tel" maxLength={20} value={phone}
          onInput={(e) => setPhone(e.currentTarget.value)} {...fieldProps('customerPhone')} />
        {fieldError('customerPhone')}

        <label class="label" for="f-email">{t.email}</label>
        <input id="f-email" name="customerEmail" type="email" autocomplete="email" maxLength={254} value={email}
          onInput={(e) => setEmail(e.currentTarget.value)} {...fieldProps('customerEmail')} />
        {fieldError('customerEmail')}

        <fieldset class="choices" {...fieldProps('orderType')}>
          <legend>{t.orderType}</legend>
          {table && (
            <label class="option">
              <input type="radio" name="orderType" value="dine_in" checked={orderType === 'dine_in'} onChange={() => setOrderType('dine_in')} />
              <span>{t.dineIn(table.number)}</span>
            </label>
          )}
          <label class="option">
            <input type="radio" name="orderType" value="takeout" checked={orderType === 'takeout'} onChange={() => setOrderType('takeout')} />
            <span>{t.takeout}</span>
          </label>
          {fieldError('orderType')}
        </fieldset>

        <fieldset class="choices" {...fieldProps('paymentMethod')}>
          <legend>{t.payment}</legend>
          {PAYMENTS.map((p) => (
            <label class="option" key={p}>
              <input type="radio" name="paymentMethod" value={p} checked={payment === p} onChange={() => setPayment(p)} />
              <span>{t[p]}</span>
            </label>
          ))}
          {fieldError('paymentMethod')}
        </fieldset>

        <dl class="totals">
          <div><dt>{t.subtotal}</dt><dd>{formatMoney(subtotal)}</dd></div>
          {service > 0 && <div><dt>{t.serviceCharge(percent)}</dt><dd>{formatMoney(service)}</dd></div>}
          <div class="grand"><dt>{service > 0 ? t.totalEstimated : t.total}</dt><dd>{formatMoney(subtotal + service)}</dd></div>
        </dl>

        {formError && <p class="error" role="alert">{formError}</p>}
        <button type="submit" class="primary wide" data-testid="place-order" disabled={busy} aria-busy={busy}>
          {busy ? t.placing : t.placeOrder(formatMoney(subtotal + service))}
        </button>
      </form>
    </section>
  );
}
