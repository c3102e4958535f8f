/**
 * Wallet gateway simulator: the online card gateway of `POST /t/:slug/checkout/wallet-payment` and
 * `POST /t/:slug/walletgateway/test-credentials`, with the same protocol as the real one.
 *
 * - Accounts: an access token (server side), a public key (client SDK) and point devices.
 *   `WALLET_SIM_ACCOUNT` always exists; `POST /__sim/accounts` (or `createAccount`) makes more.
 * - Card tokens: the fixed `WALLET_TEST_CARDS` (reusable, deterministic outcome) or tokens made
 *   by `POST /v1/card_tokens?public_key=...` as the client SDK does (single use, 7 days), whose
 *   outcome follows the cardholder name: APRO approved, FUND insufficient funds, SECU bad
 *   security code, CALL call for authorisation, OTHE other refusal; any other name approves.
 * - `POST /v1/payments` honours `X-Idempotency-Key` (required): the same key and body replay
 *   the first answer without charging again; the same key with another body is a 409.
 * - `POST /v1/payments/:id/refunds` (`{ amount? }`, `X-Idempotency-Key` required) gives back an
 *   approved charge, whole or in parts up to its amount; the same key replays the first refund.
 *
 * Parts: `state.ts` (accounts, card tokens, payments, test cards), `protocol-routes.ts` (the gateway's
 * API), `control-routes.ts` (`/__sim...`), `standalone.ts` (its own server).
 *
 * Standalone: npx tsx src/integrations/wallet/simulator/standalone.ts   (WALLET_SIM_PORT, default 4020)
 */
import type { FastifyInstance } from 'fastify';
import { systemClock, type Clock } from '../../../platform/clock.js';
import { silentLogger, type ProviderLogger } from '../../http.js';
import type { SimRefund } from '../../simulator/refunds.js';
import { controlApi, simulatorServers, type SimulatorRoutesOptions, type SimulatorServer } from '../../simulator/server.js';
import { controlRoutes } from './control-routes.js';
import { protocolRoutes } from './protocol-routes.js';
import { publicPayment, walletState, type SimPayment, type WalletSimAccount } from './state.js';

export { WALLET_SIM_ACCOUNT, WALLET_TEST_CARDS, type SimPayment, type WalletSimAccount } from './state.js';
export type { SimRefund } from '../../simulator/refunds.js';

export interface WalletSimulatorOptions {
  /** Extra accounts; `WALLET_SIM_ACCOUNT` is always there. */
  accounts?: WalletSimAccount[];
  clock?: Clock;
  log?: ProviderLogger;
}

export interface WalletSimulator extends SimulatorServer {
  createAccount(opts?: { devices?: string[] }): WalletSimAccount;
  listPayments(): SimPayment[];
  /** Refunds of one payment (a charge id), oldest first. */
  refundsOf(paymentId: string): SimRefund[];
  /** Every refund, oldest first. */
  listRefunds(): SimRefund[];
  /** Cents the gateway holds, every account: approved charges minus their refunds. */
  captured(): number;
}

export function createWalletSimulator(options: WalletSimulatorOptions = {}): WalletSimulator {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? silentLogger;
  const state = walletState(clock, options.accounts);

  async function routes(app: FastifyInstance, opts: SimulatorRoutesOptions = {}) {
    protocolRoutes(app, { state, clock, log });
    await controlApi(app, opts, (ctl) => controlRoutes(ctl, { state }));
  }

  const { buildServer, listen, closeServers } = simulatorServers(routes);

  return {
    routes,
    buildServer,
    listen,
    async close() {
      await closeServers();
    },
    createAccount: state.createAccount,
    listPayments: () => [...state.payments.values()].map(publicPayment),
    refundsOf: state.refunds.refundsOf,
    listRefunds: state.refunds.list,
    captured: state.captured,
  };
}
