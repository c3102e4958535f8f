/**
 * What the provider_b simulator remembers: issued tokens, the orders it created (in the platform's
 * getOrders shape) and their state, the status actions it received, and the catalog items pushed to it.
 */
import type { Clock } from '../../../platform/clock.js';
import { tokenStore, type TokenStore } from '../../simulator/oauth.js';
import { errorReplier, SimulatorError } from '../../simulator/server.js';

export type { TokenStore } from '../../simulator/oauth.js';

export const PROVIDER_B_SIM_CLIENT_ID = 'sim-provider-b-client';
export const PROVIDER_B_SIM_CLIENT_SECRET = 'sim-provider-b-secret';
/** The store id of the simulator's default orders (the platform's sample store). */
export const PROVIDER_B_SIM_STORE_ID = '900109448';
export const PROVIDER_B_SIM_TOKEN_TTL_SECONDS = 86_400;

export type SimOrderState = 'SENT' | 'TAKEN' | 'COOKING' | 'READY_TO_PICK' | 'DELIVERED' | 'REJECTED' | 'CANCELLED';
/** States after which the platform refuses status actions. */
export const CLOSED: ReadonlySet<SimOrderState> = new Set(['DELIVERED', 'REJECTED', 'CANCELLED']);

export interface SimOrder {
  id: string;
  storeId: string;
  /** The order exactly as `GET .../orders` shows it. */
  payload: Record<string, unknown>;
  state: SimOrderState;
  cookingTime: number | null;
  /** The last webhook sent about it (what `resend` sends again). */
  lastWebhook: { url: string; body: string; secret: string | null } | null;
}

/** A status action the service pushed. */
export interface SimStatusPush {
  orderId: string;
  storeId: string;
  status: Exclude<SimOrderState, 'SENT' | 'CANCELLED'>;
  cookingTime: number | null;
  reason: string | null;
  at: string;
}

/** A catalog item as received (`POST .../menu`), by store and sku. */
export interface SimCatalogItem {
  storeId: string;
  sku: string;
  name: string;
  description: string;
  price: number;
  category: string | null;
  available: boolean;
  /** How many times it was pushed. */
  updates: number;
  receivedAt: string;
}

export function simState(clock: Clock, ttlSeconds: number) {
  return {
    tokens: providerBTokens(clock, ttlSeconds),
    orders: new Map<string, SimOrder>(),
    statuses: [] as SimStatusPush[],
    catalog: new Map<string, SimCatalogItem>(),
    nextOrderId: 392_626,
  };
}
export type SimState = ReturnType<typeof simState>;

export { SimulatorError };
/** A refusal of the simulated platform, answered as `{ code, message }`. */
export const replyError = errorReplier((err) => ({ code: err.code, message: err.message }));

export const providerBTokens = (clock: Clock, ttlSeconds: number): TokenStore =>
  tokenStore(clock, ttlSeconds, { prefix: 'sim-pb-', tokenType: 'Bearer', defaultScope: 'orders menu' });
