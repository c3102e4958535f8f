/**
 * The online wallet gateway: the integration's one public entry. Its client speaks to the real
 * gateway (`live`), to a standalone simulator (a base URL) or to a simulator inside this process
 * (the default), always over HTTP (in-process through Fastify `inject`).
 */
import { injectFetch, joinUrl } from '../http.js';
import { defineIntegration, simulatorLifecycle, type BuiltIntegration, type IntegrationDeps } from '../integration.js';
import { HttpWalletClient, WALLET_PRODUCTION_URL, type WalletClient } from './client.js';
import { defaultWalletConfig, parseWalletConfig, type WalletConfig } from './config.js';
import { createWalletSimulator, type WalletSimulator } from './simulator/index.js';

export type { Refund, WalletCharge, WalletChargeInput, WalletClient, WalletDevice, WalletPayer, WalletRefundInput } from './client.js';
export type { WalletConfig } from './config.js';
export { WalletError } from './errors.js';
export { WALLET_SIM_ACCOUNT, WALLET_TEST_CARDS, type WalletSimulator } from './simulator/index.js';

/** Where the in-process simulator is served on the service (`mount`). */
export const WALLET_SIM_PREFIX = '/__sim/wallet';

/** The gateway's card tokenization path (`POST ?public_key=...`), called by the browser, never by this service. */
export const WALLET_CARD_TOKENS_PATH = '/v1/card_tokens';

export interface WalletIntegration extends BuiltIntegration<WalletClient> {
  simulator?: WalletSimulator;
  /**
   * Where a customer's browser turns card data into a single-use card token with the tenant's public key:
   * the same-origin path of the in-process simulator (`/__sim/wallet/v1/card_tokens`), else the absolute URL
   * of the standalone simulator or the live gateway. Card data goes there, never to this service.
   */
  tokenizationUrl: string;
}

function createWallet(w: WalletConfig, { clock, log, fetch, simulatorControl }: IntegrationDeps): WalletIntegration {
  let client: WalletClient;
  let simulator: WalletSimulator | undefined;
  if (w.mode === 'live' || w.baseUrl) {
    client = new HttpWalletClient({ baseUrl: w.baseUrl, timeoutMs: w.timeoutMs, fetch, log });
  } else {
    simulator = createWalletSimulator({ clock, log });
    // The server is closed by simulator.close().
    client = new HttpWalletClient({ baseUrl: 'http://wallet.simulator.internal', timeoutMs: w.timeoutMs, fetch: injectFetch(simulator.buildServer()), log });
  }

  return {
    client,
    simulator,
    tokenizationUrl: simulator ? `${WALLET_SIM_PREFIX}${WALLET_CARD_TOKENS_PATH}` : joinUrl(w.baseUrl ?? WALLET_PRODUCTION_URL, WALLET_CARD_TOKENS_PATH),
    ...simulatorLifecycle(simulator, WALLET_SIM_PREFIX, simulatorControl),
    describe(baseUrl) {
      if (!simulator) return [w.mode === 'live' ? 'live' : `simulator at ${w.baseUrl}`];
      const ws = `${baseUrl}${WALLET_SIM_PREFIX}`;
      return [`in-process simulator at ${ws}` + (simulatorControl ? `  (test cards: ${ws}/__sim, from this machine only)` : '')];
    },
  };
}

export const wallet = defineIntegration({
  name: 'wallet',
  provider: 'wallet',
  kind: 'payment',
  parseConfig: parseWalletConfig,
  defaultConfig: defaultWalletConfig,
  create: createWallet,
});
