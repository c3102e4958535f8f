/**
 * Taking a payment on an order: cash with the change worked out, a card on the linked terminal (live
 * status from `paymentUpdate`) or a standalone machine, PIX with its QR and "copia e cola" confirmed by
 * hand, a voucher; part of the amount (payments split across methods) and a tip.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { api, call } from '../../api/client.js';
import { formatMoney } from '../../ui/format.js';
import { centsToInput, describe, parseMoney, type Order, type PayResult } from './data.js';
import { strings as t } from './strings.js';

type Method = 'cash' | 'credit_card' | 'debit_card' | 'pix' | 'voucher';
const METHODS: Method[] = ['cash', 'credit_card', 'debit_card', 'pix', 'voucher'];

export interface LiveStatus {
  orderId: string;
  paymentStatus: string | null;
}

export function PaymentBox({
  slug,
  order,
  live,
  hasTerminal,
  onChanged,
  idPrefix,
}: {
  slug: string;
  order: Order;
  /** The last `paymentUpdate` of the kitchen room. */
  live: LiveStatus | null;
  hasTerminal: boolean;
  onChanged: () => void;
  idPrefix: string;
}) {
  const [method, setMethod] = useState<Method>('cash');
  const [linked, setLinked] = useState(hasTerminal);
  const [charge, setCharge] = useState(centsToInput(order.amountDue));
  const [tendered, setTendered] = useState('');
  const [tip, setTip] = useState('');
  const [errors, setErrors] = useState<Record<string, string | null>>({});
  const [status, setStatus] = useState<{ kind: 'approved' | 'processing' | 'declined'; text: string } | null>(null);
  const [pix, setPix] = useState<{ payload: string; qr: string; amount: number } | null>(null);
  const [busy, setBusy] = useState(false);
  const id = (n: string) => `${idPrefix}-${n}`;

  // What is due changed (a round, a payment): charge it all by default.
  useEffect(() => setCharge(centsToInput(order.amountDue)), [order.amountDue]);
  useEffect(() => {
    if (!live || live.orderId !== order._id || status?.kind !== 'processing') return;
    if (live.paymentStatus === 'approved' || (live.paymentStatus === null && order.amountPaid > 0)) setStatus({ kind: 'approved', text: t.payApproved });
    else if (live.paymentStatus === 'declined') setStatus({ kind: 'declined', text: t.payDeclined });
    onChanged();
  }, [live]);

  const chargeCents = parseMoney(charge);
  const tenderedCents = tendered.trim() ? parseMoney(tendered) : null;
  const change = method === 'cash' && chargeCents !== null && tenderedCents !== null ? tenderedCents - chargeCents : 0;

  function check(): Record<string, string | null> {
    const e: Record<string, string | null> = {};
    if (chargeCents === null) e.amount = t.invalidMoney;
    else if (chargeCents <= 0) e.amount = t.positive;
    else if (chargeCents > order.amountDue) e.amount = t.tooMuch;
    if (method === 'cash' && tendered.trim()) {
      if (tenderedCents === null) e.tendered = t.invalidMoney;
      else if (chargeCents !== null && tenderedCents < chargeCents) e.tendered = t.tenderedShort;
    }
    if (tip.trim() && parseMoney(tip) === null) e.tip = t.invalidMoney;
    return e;
  }

  async function pay(e: Event) {
    e.preventDefault();
    const found = check();
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;
    setBusy(true);
    setStatus(null);
    try {
      // Cash handed over above the charge: the API takes the tendered amount and answers the change
      // (only when the charge is all that is due; a part payment sends the part).
      const amount = method === 'cash' && tenderedCents !== null && tenderedCents > chargeCents! && chargeCents === order.amountDue ? tenderedCents : chargeCents!;
      const gateway = method === 'pix' ? 'mock' : (method === 'credit_card' || method === 'debit_card') && linked ? 'gateway_a' : 'mock';
      const tipCents = tip.trim() ? parseMoney(tip)! : undefined;
      const res: PayResult = await call(
        api.POST('/t/{slug}/orders/{id}/process-payment', {
          params: { path: { slug, id: order._id } },
          body: { method, gateway, amount, ...(tipCents ? { tip: tipCents } : {}) },
        }),
      );
      if (res.status === 'approved') {
        const given = res.change > 0 ? res.change : change > 0 ? change : 0;
        setStatus({ kind: 'approved', text: `${t.payApproved}${given > 0 ? ` ${t.change(formatMoney(given))}` : ''}` });
        setTendered('');
        setTip('');
        setPix(null);
      } else {
        setStatus({ kind: 'processing', text: res.message || t.payProcessing });
      }
      onChanged();
    } catch (err) {
      if (err instanceof ApiError && err.fields.length) {
        setErrors({ amount: err.fieldMessage('amount') ?? null, tip: err.fieldMessage('tip') ?? null, method: err.fieldMessage('method') ?? null });
      }
      setStatus({ kind: 'declined', text: describe(err) });
    } finally {
      setBusy(false);
    }
  }

  async function showPix() {
    setBusy(true);
    try {
      const r = await call(api.GET('/t/{slug}/orders/{id}/pix', { params: { path: { slug, id: order._id } } }));
      setPix({ payload: r.pixPayload, qr: r.pixQrCodeBase64, amount: r.amount });
      setCharge(centsToInput(r.amount));
    } catch (err) {
      setStatus({ kind: 'declined', text: describe(err) });
    } finally {
      setBusy(false);
    }
  }

  if (order.amountDue <= 0) {
    return (
      <p class="pay-status approved" role="status" data-testid="pay-status">
        {status?.kind === 'approved' ? `${status.text} ` : ''}
        {t.paidInFull}
      </p>
    );
  }

  return (
    <form onSubmit={pay} noValidate data-testid={`pay-${idPrefix}`}>
      <fieldset class="field" style="border:0;padding:0;margin:0 0 0.75rem">
        <legend style="font-weight:600;margin-bottom:0.25rem">{t.method}</legend>
        <div class="actions" role="radiogroup">
          {METHODS.map((m) => (
            <label key={m} class={`btn${method === m ? ' primary' : ''}`}>
              <input
                class="sr-only"
                type="radio"
                name={id('method')}
                value={m}
                checked={method === m}
                onChange={() => {
                  setMethod(m);
                  setPix(null);
                  setStatus(null);
                }}
              />
              {t.methods[m]}
            </label>
          ))}
        </div>
      </fieldset>
      {(method === 'credit_card' || method === 'debit_card') && hasTerminal && (
        <div class="field">
          <label for={id('terminal')}>{t.terminal}</label>
          <select id={id('terminal')} value={linked ? 'linked' : 'standalone'} onChange={(e) => setLinked(e.currentTarget.value === 'linked')}>
            <option value="linked">{t.terminalLinked}</option>
            <option value="standalone">{t.terminalStandalone}</option>
          </select>
        </div>
      )}
      <div class="inline-form">
        <div class={`field${errors.amount ? ' field-invalid' : ''}`}>
          <label for={id('amount')}>{t.charge}</label>
          <input
            id={id('amount')}
            inputMode="decimal"
            value={charge}
            onInput={(e) => setCharge(e.currentTarget.value)}
            aria-invalid={errors.amount ? 'true' : undefined}
            aria-describedby={errors.amount ? id('amount-err') : id('amount-hint')}
          />
          {errors.amount ? (
            <p class="field-error" id={id('amount-err')} role="alert">
              {errors.amount}
            </p>
          ) : (
            <p class="hint" id={id('amount-hint')}>
              {t.due}: {formatMoney(order.amountDue)}
            </p>
          )}
        </div>
        {method === 'cash' && (
          <div class={`field${errors.tendered ? ' field-invalid' : ''}`}>
            <label for={id('tendered')}>{t.tendered}</label>
            <input
              id={id('tendered')}
              inputMode="decimal"
              value={tendered}
              onInput={(e) => setTendered(e.currentTarget.value)}
              aria-invalid={errors.tendered ? 'true' : undefined}
              aria-describedby={errors.tendered ? id('tendered-err') : id('tendered-hint')}
            />
            {errors.tendered ? (
              <p class="field-error" id={id('tendered-err')} role="alert">
                {errors.tendered}
              </p>
            ) : (
              <p class="hint" id={id('tendered-hint')}>
                {change > 0 ? t.change(formatMoney(change)) : t.tenderedHint}
              </p>
            )}
          </div>
        )}
        <div class={`field${errors.tip ? ' field-invalid' : ''}`}>
          <label for={id('tip')}>{t.tip}</label>
          <input
            id={id('tip')}
            inputMode="decimal"
            value={tip}
            onInput={(e) => setTip(e.currentTarget.value)}
            aria-invalid={errors.tip ? 'true' : undefined}
            aria-describedby={errors.tip ? id('tip-err') : undefined}
          />
          {errors.tip && (
            <p class="field-error" id={id('tip-err')} role="alert">
              {errors.tip}
            </p>
          )}
        </div>
      </div>
      {method === 'pix' && !pix && (
        <button type="button" class="btn" disabled={busy} onClick={() => void showPix()}>
          {t.pixShow}
        </button>
      )}
      {method === 'pix' && pix && (
        <div class="pix-box">
          <img src={`data:image/png;base64,${pix.qr}`} alt={`${t.pixQr} · ${formatMoney(pix.amount)}`} />
          <div style="flex:1;min-width:220px" class="field">
            <label for={id('pix')}>{t.pixCopy}</label>
            <textarea id={id('pix')} readOnly value={pix.payload} onFocus={(e) => e.currentTarget.select()} />
          </div>
        </div>
      )}
      <div class="actions">
        <button type="submit" class="btn primary" disabled={busy || (method === 'pix' && !pix)} data-testid="pay">
          {method === 'pix' ? t.pixConfirm : `${t.pay} ${chargeCents && chargeCents > 0 ? formatMoney(chargeCents) : ''}`}
        </button>
      </div>
      {status && (
        <p class={`pay-status ${status.kind}`} role="status" aria-live="polite" data-testid="pay-status">
          {status.text}
        </p>
      )}
    </form>
  );
}
