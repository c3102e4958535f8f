/**
 * After ordering: the PIX payment (QR image and "copia e cola" code with a copy button) while unpaid, and
 * the order's status, live over socket.io. On every (re)connect the page joins the tracking room again
 * and refetches the order, so it catches up on what it missed while offline.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../shared/api.js';
import { copyText } from '../shared/dom.js';
import { formatMoney } from '../shared/money.js';
import type { Socket } from '../shared/socket.js';
import { strings as t } from './strings.js';
import type { TrackedOrder } from './types.js';

/** What the page keeps (sessionStorage) so a reload returns here. */
export interface PlacedOrder {
  orderNumber: string;
  paymentMethod: string | null;
  pixPayload: string | null;
  pixQrCodeBase64: string | null;
  total: number;
  status: string;
  paymentStatus: string | null;
}

const STEPS = ['pending', 'confirmed', 'preparing', 'ready', 'delivered'] as const;

interface Props {
  slug: string;
  placed: PlacedOrder;
  onNewOrder: () => void;
}

export function OrderView({ slug, placed, onNewOrder }: Props) {
  const [order, setOrder] = useState<TrackedOrder | null>(null);
  const [live, setLive] = useState(false);
  const [failed, setFailed] = useState(false);
  const [copyState, setCopyState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const heading = useRef<HTMLHeadingElement>(null);
  const number = placed.orderNumber;
  const base = `/t/${encodeURIComponent(slug)}/orders/${encodeURIComponent(number)}`;

  useEffect(() => heading.current?.focus(), []);

  useEffect(() => {
    let stopped = false;
    const refetch = () =>
      api<TrackedOrder>(`${base}/track`)
        .then((o) => {
          if (stopped) return;
          setOrder(o);
          setFailed(false);
        })
        .catch((err: unknown) => {
          if (!stopped && !(err instanceof ApiError && err.status === 0)) setFailed(true);
        });
    void refetch();
    // socket.io-client is loaded only here, after ordering: the menu's first view stays small.
    let socket: Socket | null = null;
    void import('../shared/socket.js').then(({ connectSocket, emitWithAck }) => {
      if (stopped) return;
      socket = connectSocket({
        onConnect: (s) => {
          emitWithAck<{ ok: boolean }>(s, 'trackOrder', { slug, orderNumber: number })
            .then((ack) => !stopped && setLive(!!ack?.ok))
            .catch(() => !stopped && setLive(false));
          void refetch();
        },
        onDisconnect: () => setLive(false),
      });
      socket.on('orderUpdate', (o: TrackedOrder) => {
        if (o?.orderNumber === number) setOrder((prev) => ({ ...prev, ...o }));
      });
      socket.on('paymentUpdate', (p: { orderNumber: string; paymentStatus: string | null }) => {
        if (p?.orderNumber === number) setOrder((prev) => (prev ? { ...prev, paymentStatus: p.paymentStatus } : prev));
      });
    });
    return () => {
      stopped = true;
      socket?.disconnect();
    };
  }, [slug, number]);

  const status = order?.status ?? placed.status;
  const paymentStatus = order?.paymentStatus !== undefined ? order.paymentStatus : placed.paymentStatus;
  const paid = paymentStatus === 'approved';
  const showPix = placed.paymentMethod === 'pix' && !!placed.pixPayload && !paid && status !== 'cancelled';
  const current = STEPS.indexOf(status as (typeof STEPS)[number]);

  const copy = async () => {
    const ok = await copyText(placed.pixPayload ?? '');
    setCopyState(ok ? 'copied' : 'failed');
  };

  return (
    <section class="page">
      <h2 tabIndex={-1} ref={heading}>{t.orderTitle}</h2>
      <p class="order-no">
        {t.orderNumber} <strong data-testid="order-number">{number}</strong>
      </p>

      {showPix && (
        <div class="card pix">
          <h3>{t.pixTitle}</h3>
          <p class="muted">{t.pixHelp}</p>
          {placed.pixQrCodeBase64 && (
            <img class="qr" width={240} height={240} alt={t.pixQrAlt} src={`data:image/png;base64,${placed.pixQrCodeBase64}`} />
          )}
          <p class="label" id="pix-code-label">{t.pixCode}</p>
          <p class="pix-code" data-testid="pix-payload" aria-labelledby="pix-code-label">{placed.pixPayload}</p>
          <button type="button" class="primary wide" data-testid="copy-pix" onClick={copy}>{t.copy}</button>
          <p class={copyState === 'failed' ? 'error' : 'ok'} role="status">
            {copyState === 'copied' ? t.copied : copyState === 'failed' ? t.copyFailed : ''}
          </p>
          <p class="total-line">{t.total}: <strong>{formatMoney(order?.total ?? placed.total)}</strong></p>
        </div>
      )}
      {placed.paymentMethod === 'pix' && paid && <p class="ok">{t.pixPaid}</p>}

      <div class="card">
        <p class="status-line" aria-live="polite">
          {t.statusLabel}:{' '}
          <strong data-testid="order-status" data-status={status}>{t.statuses[status] ?? status}</strong>
        </p>
        {status === 'cancelled' ? null : (
          <ol class="steps">
            {STEPS.map((s, i) => (
              <li key={s} class={i < current ? 'done' : i === current ? 'current' : ''} aria-current={i === current ? 'step' : undefined}>
                {t.statuses[s]}
              </li>
            ))}
          </ol>
        )}
        <p class="muted small" data-testid="payment-status" data-status={paymentStatus ?? 'pending'}>
          {paymentStatus ? t.payments[paymentStatus] ?? paymentStatus : t.paymentPending}
        </p>
        {order?.items && (
          <ul class="lines">
            {order.items.map((l, i) => (
              <li key={i}>
                <span>{l.quantity.toLocaleString('pt-BR')} × {l.name}</span>
                <span>{formatMoney(Math.round(l.price * l.quantity))}</span>
              </li>
            ))}
          </ul>
        )}
        {!!order?.serviceCharge && (
          <p class="muted small">
            {t.serviceIncluded}: {formatMoney(order.serviceCharge)}
          </p>
        )}
        {order?.total !== undefined && <p class="total-line">{t.total}: <strong>{formatMoney(order.total)}</strong></p>}
        <p class="muted small" role="status">{failed ? t.trackFailed : live ? t.live : t.reconnecting}</p>
      </div>

      <button type="button" class="secondary wide" onClick={onNewOrder}>{t.newOrder}</button>
    </section>
  );
}
