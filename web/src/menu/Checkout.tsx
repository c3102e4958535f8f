/**
 * The guest checkout form: name, optional phone and e-mail, dine-in on the QR table or takeout, payment. With the
 * online card (wallet), the card is tokenized by the browser at the gateway (wallet.ts) and the order is paid and
 * created by `POST /checkout/wallet-payment`; the card data stays in this form's state only.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, uuid } from '../shared/api.js';
import { formatMoney } from '../shared/money.js';
import { toOrderLine, type CartLine } from './cart.js';
import { strings as t } from './strings.js';
import type { CheckoutOrder, OrderType, PaymentChoice, Storefront } from './types.js';
import { CardTokenError, checkCard, formatCardNumber, formatExpiry, tokenizeCard, type CardField, type CardInput, type CardProblem } from './wallet.js';

interface Props {
  slug: string;
  pdvSlug: string;
  store: Storefront;
  lines: CartLine[];
  subtotal: number;
  onBack: () => void;
  onPlaced: (order: CheckoutOrder) => void;
}

type FieldName = 'customerName' | 'customerPhone' | 'customerEmail' | 'orderType' | 'paymentMethod' | 'cardNumber' | 'cardHolder' | 'cardExpiry' | 'cardCvv';
const PAYMENTS: PaymentChoice[] = ['pix', 'card', 'cash'];
const CARD_FIELDS: Record<CardField, FieldName> = { number: 'cardNumber', holder: 'cardHolder', expiry: 'cardExpiry', cvv: 'cardCvv' };
const CARD_IDS: Record<CardField, string> = { number: 'f-card-number', holder: 'f-card-holder', expiry: 'f-card-expiry', cvv: 'f-card-cvv' };
const EMPTY_CARD: CardInput = { number: '', holder: '', expiry: '', cvv: '' };

/** The page's text for a card problem, by field or for the card as a whole. */
function cardMessage(p: CardProblem): string {
  if (p.field === 'other') return p.kind === 'network' ? t.networkFailed : t.cardUnavailable;
  return p.kind === 'expired' ? t.cardErrors.expired : t.cardErrors[p.field];
}

/** A wallet attempt whose outcome is unknown (no answer, 409, 429, 5xx): the same order and card resend its token and key. */
interface WalletAttempt {
  order: string;
  card: string;
  token: string;
  key: string;
}
/** Answers after which the card token may not have been spent, or was spent on this very attempt (the key replays it). */
const retryable = (status: number) => status === 0 || status === 409 || status === 429 || status >= 500;

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

/** The input of a form field, for focus. */
function inputId(field: FieldName): string {
  const ids: Partial<Record<FieldName, string>> = { customerName: 'f-name', customerPhone: 'f-phone', customerEmail: 'f-email' };
  const card = (Object.keys(CARD_FIELDS) as CardField[]).find((k) => CARD_FIELDS[k] === field);
  return ids[field] ?? (card ? CARD_IDS[card] : '');
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
  const [card, setCard] = useState<CardInput>(EMPTY_CARD);
  // A decline or a tokenization failure: shown beside the card fields.
  const [cardError, setCardError] = useState<string | null>(null);
  // One Idempotency-Key per attempt: a retry of the same order (after a lost answer) reuses it.
  const attempt = useRef<{ key: string; body: string } | null>(null);
  const walletAttempt = useRef<WalletAttempt | null>(null);
  const walletOffered = !!(store.walletPublicKey && store.walletTokenUrl);
  const payments: PaymentChoice[] = walletOffered ? [...PAYMENTS, 'wallet'] : PAYMENTS;
  const wallet = payment === 'wallet' && walletOffered;
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => heading.current?.focus(), []);

  const percent = orderType === 'dine_in' ? (store.serviceChargePercent ?? 0) : 0;
  const service = Math.round((subtotal * percent) / 100);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    const missing: Partial<Record<FieldName, string>> = {};
    if (!name.trim()) missing.customerName = t.nameRequired;
    if (wallet) {
      if (!email.trim()) missing.customerEmail = t.emailRequired;
      for (const p of checkCard(card)) if (p.field !== 'other') missing[CARD_FIELDS[p.field]] ??= cardMessage(p);
    }
    const first = Object.keys(missing)[0] as FieldName | undefined;
    if (first) {
      setErrors(missing);
      setFormError(t.fixFields);
      setCardError(null);
      document.getElementById(inputId(first))?.focus();
      return;
    }
    if (wallet) return payOnline();
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

  /** The guest order of the wallet checkout: the same fields as the guest checkout, without paymentMethod, with the e-mail. */
  const walletOrder = () => ({
    pdv: pdvSlug,
    ...(orderType === 'dine_in' && table ? { table: table.number } : {}),
    customerName: name.trim(),
    ...(phone.trim() ? { customerPhone: phone.trim() } : {}),
    customerEmail: email.trim(),
    items: lines.map(toOrderLine),
    orderType,
  });

  /** Tokenizes the card at the gateway (or reuses the token of an attempt without an answer), then pays and orders. */
  const payOnline = async () => {
    const order = walletOrder();
    const orderJson = JSON.stringify(order);
    const cardJson = JSON.stringify(card);
    setBusy(true);
    setErrors({});
    setFormError(null);
    setCardError(null);
    try {
      let pending = walletAttempt.current;
      if (!pending || pending.order !== orderJson || pending.card !== cardJson) {
        walletAttempt.current = null;
        const token = await tokenizeCard(store.walletTokenUrl!, store.walletPublicKey!, card);
        pending = walletAttempt.current = { order: orderJson, card: cardJson, token, key: uuid() };
      }
      const placed = await api<CheckoutOrder>(`/t/${encodeURIComponent(slug)}/checkout/wallet-payment`, {
        method: 'POST',
        body: { ...order, cardToken: pending.token },
        headers: { 'idempotency-key': pending.key },
      });
      walletAttempt.current = null;
      setCard(EMPTY_CARD);
      onPlaced(placed);
    } catch (err) {
      if (err instanceof CardTokenError) {
        const { field } = err.problem;
        if (field === 'other') setCardError(cardMessage(err.problem));
        else {
          setErrors({ [CARD_FIELDS[field]]: cardMessage(err.problem) });
          setFormError(t.fixFields);
          document.getElementById(CARD_IDS[field])?.focus();
        }
        return;
      }
      if (!(err instanceof ApiError)) {
        setCardError(t.paymentFailed);
        return;
      }
      if (!retryable(err.status)) walletAttempt.current = null;
      if (err.status === 402) {
        const reason = err.fieldMessage('cardToken');
        setCardError((reason && t.declineReasons[reason]) || t.declined);
      } else if (err.status === 400 && err.code === 'validation') {
        const tokenProblem = !!err.fieldMessage('cardToken');
        const { fields, other } = fieldErrors(err);
        setErrors(fields);
        if (tokenProblem) setCardError(t.cardUnavailable);
        setFormError(Object.keys(fields).length ? t.fixFields : tokenProblem ? null : other);
      } else if (err.status === 429) {
        setCardError(t.tooManyAttempts);
      } else if (err.status === 0) {
        setCardError(t.networkFailed);
      } else {
        setCardError(err.message ? `${t.paymentFailed} (${err.message})` : t.paymentFailed);
      }
    } finally {
      setBusy(false);
    }
  };

  const setCardField = (field: CardField, value: string) => setCard((c) => ({ ...c, [field]: value }));

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

        <label class="label" for="f-email">{wallet ? t.emailForWallet : t.email}</label>
        <input id="f-email" name="customerEmail" type="email" autocomplete="email" maxLength={254} value={email} required={wallet}
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
          {payments.map((p) => (
            <label class="option" key={p}>
              <input type="radio" name="paymentMethod" value={p} checked={payment === p} onChange={() => setPayment(p)} />
              <span>{t[p]}</span>
            </label>
          ))}
          {fieldError('paymentMethod')}
        </fieldset>

        {wallet && (
          <fieldset class="card-fields" data-testid="card-fields" aria-describedby="card-help">
            <legend>{t.cardTitle}</legend>
            <p class="muted small" id="card-help">{t.cardHelp}</p>
            <label class="label" for="f-card-number">{t.cardNumber}</label>
            <input id="f-card-number" autocomplete="cc-number" inputMode="numeric" maxLength={23} required value={card.number}
              onInput={(e) => setCardField('number', formatCardNumber(e.currentTarget.value))} {...fieldProps('cardNumber')} />
            {fieldError('cardNumber')}

            <label class="label" for="f-card-holder">{t.cardHolder}</label>
            <input id="f-card-holder" autocomplete="cc-name" autoCapitalize="characters" maxLength={60} required value={card.holder}
              onInput={(e) => setCardField('holder', e.currentTarget.value)} {...fieldProps('cardHolder')} />
            {fieldError('cardHolder')}

            <div class="card-row">
              <div>
                <label class="label" for="f-card-expiry">{t.cardExpiry}</label>
                <input id="f-card-expiry" autocomplete="cc-exp" inputMode="numeric" placeholder="MM/AA" maxLength={5} required value={card.expiry}
                  onInput={(e) => setCardField('expiry', formatExpiry(e.currentTarget.value))} {...fieldProps('cardExpiry')} />
                {fieldError('cardExpiry')}
              </div>
              <div>
                <label class="label" for="f-card-cvv">{t.cardCvv}</label>
                <input id="f-card-cvv" autocomplete="cc-csc" inputMode="numeric" maxLength={4} required value={card.cvv}
                  onInput={(e) => setCardField('cvv', e.currentTarget.value.replace(/\D+/g, ''))} {...fieldProps('cardCvv')} />
                {fieldError('cardCvv')}
              </div>
            </div>
            {cardError && <p class="error" role="alert" data-testid="card-error">{cardError}</p>}
          </fieldset>
        )}

        <dl class="totals">
          <div><dt>{t.subtotal}</dt><dd>{formatMoney(subtotal)}</dd></div>
          {service > 0 && <div><dt>{t.serviceCharge(percent)}</dt><dd>{formatMoney(service)}</dd></div>}
          <div class="grand"><dt>{service > 0 ? t.totalEstimated : t.total}</dt><dd>{formatMoney(subtotal + service)}</dd></div>
        </dl>

        {formError && <p class="error" role="alert">{formError}</p>}
        <button type="submit" class="primary wide" data-testid="place-order" disabled={busy} aria-busy={busy}>
          {busy ? (wallet ? t.paying : t.placing) : (wallet ? t.payOrder : t.placeOrder)(formatMoney(subtotal + service))}
        </button>
      </form>
    </section>
  );
}
