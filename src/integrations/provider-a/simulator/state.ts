/**
 * What the provider_a simulator remembers: its OAuth clients and tokens, the orders it placed (in the
 * order-details shape), the status actions it received, the catalog items it received, and failures a test
 * asked for.
 */
import type { Clock } from '../../../platform/clock.js';
import { tokenStore, type TokenStore } from '../../simulator/oauth.js';
import { errorReplier, SimulatorError } from '../../simulator/server.js';
import type { ProviderAOrderAction } from '../client.js';

export type { TokenStore } from '../../simulator/oauth.js';

export const PROVIDER_A_SIM_CLIENT_ID = 'sim-provider-a-client';
export const PROVIDER_A_SIM_CLIENT_SECRET = 'sim-provider-a-secret';
/** The merchant of orders created without one. */
export const PROVIDER_A_SIM_MERCHANT_ID = 'sim-merchant-a';
/** Token lifetime (6 hours, like the real platform). */
export const PROVIDER_A_SIM_TOKEN_TTL_SECONDS = 21_600;

/** `reference`: the event names the order (the real platform); `full`: the event also embeds it as `order`. */
export type ProviderAWebhookShape = 'reference' | 'full';

/** How a webhook is signed: with the secret, with a wrong one (the receiver must answer 401), or not at all. */
export type SignatureMode = 'valid' | 'bad' | 'none';

/** Order states of the platform. */
export type SimOrderStatus = 'PLACED' | 'CONFIRMED' | 'IN_PREPARATION' | 'READY_TO_PICKUP' | 'DISPATCHED' | 'CANCELLED';

export interface SimOrder {
  id: string;
  merchantId: string;
  status: SimOrderStatus;
  /** The body of `GET /order/v1.0/orders/{id}`. */
  details: Record<string, unknown>;
  /** The last webhook sent about it (what a duplicate repeats). */
  lastWebhook: { url: string; body: string; eventId: string; event: string; shape: ProviderAWebhookShape } | null;
}

/** A status action the platform received. */
export interface StatusPush {
  orderId: string;
  merchantId: string;
  action: ProviderAOrderAction;
  /** The `STATUS_MAP.provider_a` status this action carries (CONFIRMED, IN_PREPARATION, READY_TO_PICKUP, CONCLUDED, CANCELLED). */
  status: string;
  /** The order's state at the platform afterwards. */
  orderStatus: SimOrderStatus;
  body: unknown;
  at: string;
}

/** A catalog item as received (`PUT /catalog/v2.0/merchants/{merchantId}/items`). */
export interface SimCatalogItem {
  merchantId: string;
  externalCode: string;
  name: string;
  description: string;
  price: { value: number };
  status: 'AVAILABLE' | 'UNAVAILABLE';
  categoryName: string | null;
  /** How many times it was received. */
  version: number;
  updatedAt: string;
}

export { SimulatorError };
/** A refusal of the simulated platform, answered as iFood does: `{ error: { code, message } }`. */
export const replyError = errorReplier((err) => ({ error: { code: err.code, message: err.message } }));

export function simState(clock: Clock, opts: { clientId: string; clientSecret: string; tokenTtlSeconds: number }) {
  const clients = new Map<string, string>([[opts.clientId, opts.clientSecret]]);
  const orders = new Map<string, SimOrder>();
  const pushes: StatusPush[] = [];
  const catalog = new Map<string, SimCatalogItem>();
  const failures = { count: 0, status: 500 };
  const tokens: TokenStore = tokenStore(clock, opts.tokenTtlSeconds, { prefix: 'provider-a-sim-' });
  return {
    clients,
    orders,
    pushes,
    catalog,
    failures,
    tokens,
    order(id: string): SimOrder {
      const o = orders.get(id);
      if (!o) throw new SimulatorError(404, 'NotFound', `order ${id} not found`);
      return o;
    },
    /** Consumes one injected failure, if any: the status to answer. */
    takeFailure(): number | null {
      if (failures.count <= 0) return null;
      failures.count--;
      return failures.status;
    },
    catalogKey: (merchantId: string, externalCode: string) => `${merchantId}\u0000${externalCode}`,
  };
}
export type SimState = ReturnType<typeof simState>;
