/**
 * The orders the simulated platform places and the events it sends about them: place an order and send its
 * PLACED event, send the last event again (a duplicate: same body, same event id), cancel an order as the
 * platform (CANCELLED event).
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../platform/clock.js';
import type { ProviderLogger } from '../../http.js';
import { buildProviderAEvent, type ProviderAEventName } from '../webhook.js';
import { buildOrderDetails, type SimOrderInput } from './orders.js';
import { SimulatorError, type ProviderAWebhookShape, type SignatureMode, type SimOrder, type SimState } from './state.js';
import type { WebhookDelivery, WebhookSender, WebhookSettings } from './webhooks.js';

export interface SendOptions {
  /** Where to send (the tenant's `/t/:slug/webhooks/provider_a`); default where the order's last event went, else the simulator's URL. */
  url?: string;
  /** Sign with this secret instead of the simulator's. */
  secret?: string;
  /** `bad`: signed with a wrong secret; `none`: unsigned. Default: signed when there is a secret. */
  signature?: SignatureMode;
  shape?: ProviderAWebhookShape;
}

export interface SentEvent {
  order: Record<string, unknown>;
  event: Record<string, unknown>;
  /** The first delivery attempt; null when no URL was given nor configured (the order is still readable by its id). */
  webhook: WebhookDelivery | null;
}

export interface OrderBookDeps {
  state: SimState;
  clock: Clock;
  log: ProviderLogger;
  webhooks: WebhookSender;
  settings: WebhookSettings;
}

export function orderBook({ state, clock, log, webhooks, settings }: OrderBookDeps) {
  async function notify(order: SimOrder, name: ProviderAEventName, opts: SendOptions): Promise<SentEvent> {
    const shape = opts.shape ?? settings.shape;
    const event = buildProviderAEvent({
      id: randomUUID(),
      name,
      orderId: order.id,
      merchantId: order.merchantId,
      createdAt: clock.now(),
      ...(shape === 'full' ? { order: order.details } : {}),
    });
    const body = JSON.stringify(event);
    // Default: where this order's events went (the tenant that received it), else the simulator's URL.
    const url = opts.url ?? order.lastWebhook?.url ?? settings.url;
    if (!url) {
      log.warn({ orderId: order.id }, 'provider_a simulator: no webhook URL given nor configured; the event was not sent');
      return { order: order.details, event: { ...event }, webhook: null };
    }
    order.lastWebhook = { url, body, eventId: event.id, event: name, shape };
    const webhook = await webhooks.send(url, { orderId: order.id, eventId: event.id, event: name, shape }, body, opts);
    return { order: order.details, event: { ...event }, webhook };
  }

  return {
    /** Places an order (`input` in cents; no items: a sample order) and sends its PLACED event. */
    async place(input: SimOrderInput, opts: SendOptions = {}): Promise<SentEvent> {
      if (typeof input !== 'object' || input === null) throw new SimulatorError(400, 'BadRequest', 'order must be an object');
      const details = buildOrderDetails(input, clock.now());
      const id = details.id as string;
      if (state.orders.has(id)) throw new SimulatorError(409, 'Conflict', `order ${id} exists`);
      const order: SimOrder = { id, merchantId: (details.merchant as { id: string }).id, status: 'PLACED', details, lastWebhook: null };
      state.orders.set(id, order);
      log.info({ orderId: id }, 'provider_a simulator: order placed');
      return notify(order, 'PLACED', opts);
    },

    /** Sends the order's last event again, byte for byte (same event id); `signature` / `secret` / `url` may change. */
    async resend(orderId: string, opts: SendOptions = {}): Promise<{ webhook: WebhookDelivery }> {
      const order = state.order(orderId);
      const last = order.lastWebhook;
      if (!last) throw new SimulatorError(409, 'NothingSent', `no webhook was sent for order ${orderId}`);
      const url = opts.url ?? last.url;
      const webhook = await webhooks.send(url, { orderId, eventId: last.eventId, event: last.event, shape: last.shape }, last.body, opts);
      return { webhook };
    },

    /** The platform cancels the order (the customer gave up, the platform could not deliver): CANCELLED event. */
    async cancel(orderId: string, opts: SendOptions = {}): Promise<SentEvent> {
      const order = state.order(orderId);
      if (order.status === 'CANCELLED') throw new SimulatorError(409, 'OrderCancelled', `order ${orderId} was already cancelled`);
      order.status = 'CANCELLED';
      return notify(order, 'CANCELLED', opts);
    },
  };
}
export type OrderBook = ReturnType<typeof orderBook>;
