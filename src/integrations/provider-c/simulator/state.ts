/**
 * What the provider_c simulator remembers besides its orders (`orders.ts`) and keys (`keys.ts`): the OAuth
 * clients it knows and the tokens it issued, the statuses the service pushed and the catalog items it received.
 */
import type { Clock } from '../../../platform/clock.js';
import { tokenStore, type TokenStore } from '../../simulator/oauth.js';
import { errorReplier, SimulatorError } from '../../simulator/server.js';

export type { TokenStore } from '../../simulator/oauth.js';

export const PROVIDER_C_SIM_CLIENT_ID = 'sim-provider-c-client';
export const PROVIDER_C_SIM_CLIENT_SECRET = 'sim-provider-c-secret';
/** Uber Eats' client-credentials tokens live 30 days. */
export const PROVIDER_C_SIM_TOKEN_TTL_SECONDS = 2_592_000;
export const PROVIDER_C_SIM_ISSUER = 'https://provider-c.simulator';
export const PROVIDER_C_SIM_SCOPES = ['eats.order', 'eats.store'] as const;

export { SimulatorError };
/** A refusal of the simulated platform, answered as `{ code, message }` (Uber Eats' error body). */
export const replyError = errorReplier((err) => ({ code: err.code, message: err.message }));

export const providerCTokens = (clock: Clock, ttlSeconds: number): TokenStore =>
  tokenStore(clock, ttlSeconds, { prefix: 'IA.sim-', tokenType: 'Bearer', defaultScope: PROVIDER_C_SIM_SCOPES.join(' ') });

/** The OAuth clients (client id -> secret) the platform knows; more are added by the control API. */
export function clientRegistry(initial: Record<string, string>) {
  const clients = new Map(Object.entries(initial));
  return {
    secretOf: (clientId: string): string | undefined => clients.get(clientId),
    add(clientId: string, clientSecret: string) {
      clients.set(clientId, clientSecret);
    },
    ids: (): string[] => [...clients.keys()],
  };
}
export type ClientRegistry = ReturnType<typeof clientRegistry>;

export interface StatusPush {
  orderId: string;
  action: string;
  body: unknown;
  /** What the platform answered. */
  status: number;
  at: string;
}

export interface CatalogPut {
  storeId: string;
  itemId: string;
  body: unknown;
  at: string;
}

/** Every status push and catalog item received, oldest first (the last 1000 of each). */
export function receivedLog() {
  const statuses: StatusPush[] = [];
  const catalog: CatalogPut[] = [];
  const items = new Map<string, CatalogPut>();
  const keep = <T>(list: T[], v: T) => {
    list.push(v);
    if (list.length > 1000) list.splice(0, list.length - 1000);
  };
  return {
    statuses: statuses as readonly StatusPush[],
    catalog: catalog as readonly CatalogPut[],
    pushStatus: (s: StatusPush) => keep(statuses, s),
    putItem(p: CatalogPut) {
      keep(catalog, p);
      items.set(`${p.storeId}\u0000${p.itemId}`, p);
    },
    /** The catalog as it stands: the last version of each (store, item). */
    items: (): CatalogPut[] => [...items.values()],
  };
}
export type ReceivedLog = ReturnType<typeof receivedLog>;
