/**
 * What a test or a person does as the platform: place an order and send its NEW_ORDER webhook (whole
 * order, or a reference only), send it again (a duplicate), with a bad signature, or cancel the order.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../platform/clock.js';
import { PROVIDER_B_NEW_ORDER } from '../webhook.js';
import { buildSimOrder, type SimOrderInput } from './orders.js';
import { PROVIDER_B_SIM_STORE_ID, SimulatorError, type SimOrder, type SimState } from './state.js';
import type { WebhookDelivery, WebhookSender } from './webhooks.js';

export interface SendOptions {
  /** Where the webhook goes (the service's `/t/:slug/webhooks/provider_b`); default the simulator's `webhookUrl`. */
  webhookUrl?: string;
  /** Key of the signature; default the simulator's. null: unsigned. */
  webhookSecret?: string | null;
  /** Sign with a wrong key (the receiver must answer 401). */
  badSignature?: boolean;
}

export interface CreateOptions extends SendOptions {
  /** Send `{ event, order_id, store_id }` without the order (the service fetches it). */
  reference?: boolean;
}

export interface Defaults {
  webhookUrl: string | null;
  webhookSecret: string | null;
}

export function orderActions({ state, clock, webhooks, defaults }: { state: SimState; clock: Clock; webhooks: WebhookSender; defaults: Defaults }) {
  function target(opts: SendOptions) {
    const url = opts.webhookUrl ?? defaults.webhookUrl;
    if (!url) throw new SimulatorError(400, 'bad_request', 'webhookUrl is required (no default webhook URL configured)');
    try {
      new URL(url);
    } catch {
      throw new SimulatorError(400, 'bad_request', 'webhookUrl must be an absolute URL');
    }
    return { url, secret: opts.webhookSecret === undefined ? defaults.webhookSecret : opts.webhookSecret };
  }

  function find(id: string): SimOrder {
    const order = state.orders.get(id);
    if (!order) throw new SimulatorError(404, 'order_not_found', `order ${id} not found`);
    return order;
  }

  function post(order: SimOrder, type: string, body: Record<string, unknown>, opts: SendOptions): Promise<WebhookDelivery> {
    const { url, secret } = target(opts);
    const raw = JSON.stringify(body);
    order.lastWebhook = { url, body: raw, secret };
    return webhooks.send({ orderId: order.id, type, url, body: raw, secret, badSignature: opts.badSignature });
  }

  return {
    /** Creates an order and sends its NEW_ORDER webhook. */
    async create(input: SimOrderInput = {}, opts: CreateOptions = {}): Promise<{ order: SimOrder; webhook: WebhookDelivery }> {
      target(opts); // refuse before creating anything
      const id = input.orderId ?? String(state.nextOrderId++);
      if (state.orders.has(id)) throw new SimulatorError(409, 'duplicate_order', `order ${id} exists`);
      const storeId = input.storeId ?? PROVIDER_B_SIM_STORE_ID;
      const order: SimOrder = { id, storeId, payload: buildSimOrder(input, id, storeId, clock.now()), state: 'SENT', cookingTime: null, lastWebhook: null };
      state.orders.set(id, order);
      const event = { id: randomUUID(), type: PROVIDER_B_NEW_ORDER, created_at: clock.now().toISOString(), store_id: storeId };
      const body = opts.reference ? { event, order_id: id, store_id: storeId } : { event, order: order.payload };
      return { order, webhook: await post(order, PROVIDER_B_NEW_ORDER, body, opts) };
    },

    /** Sends the order's last webhook again, byte for byte (a duplicate), re-signed now. */
    async resend(id: string, opts: SendOptions = {}): Promise<WebhookDelivery> {
      const order = find(id);
      const last = order.lastWebhook;
      if (!last) throw new SimulatorError(409, 'no_webhook', `order ${id} has no webhook to resend`);
      const secret = opts.webhookSecret === undefined ? last.secret : opts.webhookSecret;
      const type = (JSON.parse(last.body) as { event?: { type?: string } | string }).event;
      const name = typeof type === 'string' ? type : (type?.type ?? PROVIDER_B_NEW_ORDER);
      return webhooks.send({ orderId: id, type: name, url: opts.webhookUrl ?? last.url, body: last.body, secret, badSignature: opts.badSignature });
    },

    /** The platform cancels the order: `{ event: 'canceled_*', order_id, store_id, eventId }`. */
    async cancel(id: string, opts: SendOptions & { event?: string } = {}): Promise<WebhookDelivery> {
      const order = find(id);
      const event = opts.event ?? 'canceled_with_charge';
      if (!/^canceled_[a-z_]+$/.test(event)) throw new SimulatorError(400, 'bad_request', 'event must be canceled_<something>');
      if (order.state === 'CANCELLED' || order.state === 'DELIVERED') throw new SimulatorError(409, 'invalid_order_state', `order ${id} is ${order.state}`);
      order.state = 'CANCELLED';
      const prior = order.lastWebhook;
      const sendOpts: SendOptions = {
        webhookUrl: opts.webhookUrl ?? prior?.url,
        webhookSecret: opts.webhookSecret !== undefined ? opts.webhookSecret : prior ? prior.secret : undefined,
        badSignature: opts.badSignature,
      };
      return post(order, event, { event, order_id: id, store_id: order.storeId, eventId: randomUUID() }, sendOpts);
    },
  };
}
export type OrderActions = ReturnType<typeof orderActions>;
