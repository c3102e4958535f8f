/**
 * Builds the payment provider clients from the configuration: the real endpoints (`live`), a
 * standalone simulator (`simulator` + base URL) or simulators running in this process
 * (`simulator` without base URL, the default, so `npm start` alone runs the full card flow).
 *
 * In-process, the clients still speak HTTP to the simulators (through Fastify `inject`, no socket),
 * with OAuth, payment intents and signed webhooks exactly as against the real gateway.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Config, PaymentsConfig } from '../config.js';
import { systemClock, type Clock } from '../platform/clock.js';
import { HttpGatewayAClient, type GatewayAClient } from './gateway-a/client.js';
import {
  createGatewayASimulator,
  GATEWAY_A_SIM_CLIENT_ID,
  GATEWAY_A_SIM_CLIENT_SECRET,
  type GatewayASimulator,
  type WebhookDeliverer,
} from './gateway-a/simulator.js';
import { injectFetch, joinUrl, silentLogger, type FetchLike, type ProviderLogger } from './http.js';
import { HttpWalletClient, type WalletClient } from './wallet/client.js';
import { createWalletSimulator, type WalletSimulator } from './wallet/simulator.js';

/** Route of the service that receives gateway_a webhooks (spec 4.7). */
export const GATEWAY_A_WEBHOOK_PATH = '/api/gateway-a/webhook';
/** Where `mountSimulators` puts the in-process simulators on the service's own server. */
export const GATEWAY_A_SIM_PREFIX = '/__sim/gateway-a';
export const WALLET_SIM_PREFIX = '/__sim/wallet';

export interface PaymentProviders {
  /** null when GATEWAY_A_MODE=off: gateway_a is "not configured" and payments fall back to mock. */
  gatewayA: GatewayAClient | null;
  /** Secret the webhook route checks `X-GatewayA-Signature` with; undefined: skip the check and warn (spec 5.6). */
  gatewayAWebhookSecret: string | undefined;
  wallet: WalletClient;
  /** The in-process simulators, when this process runs them (tests drive them directly). */
  simulators: { gatewayA?: GatewayASimulator; wallet?: WalletSimulator };
  /**
   * Serves the in-process simulators under /__sim/gateway-a and /__sim/wallet: their protocol, and their
   * control API (`.../__sim/...`) to loopback callers only, unless `simulatorControl` is off (production).
   */
  mountSimulators(app: FastifyInstance): Promise<void>;
  /** Lines for the start-up banner, given the service's base URL. */
  describe(baseUrl: string): string[];
  /** Stops simulator timers and webhook retries. */
  close(): Promise<void>;
}

export interface PaymentProvidersOptions {
  /** fetch for live endpoints and standalone simulators (default: global fetch). */
  fetch?: FetchLike;
  clock?: Clock;
  log?: ProviderLogger;
  /**
   * How the in-process gateway_a simulator sends its webhooks. Default: HTTP POST to
   * GATEWAY_A_SIM_WEBHOOK_URL or `<publicUrl>/api/gateway-a/webhook`. Tests: `injectDeliverer(app)`.
   */
  gatewayAWebhook?: WebhookDeliverer;
}

/** Defaults for a configuration built by hand (tests): in-process simulators, a fresh webhook secret. */
export function defaultPaymentsConfig(): PaymentsConfig {
  return {
    gatewayA: {
      mode: 'simulator',
      baseUrl: undefined,
      clientId: undefined,
      clientSecret: undefined,
      webhookSecret: randomBytes(32).toString('hex'),
      sandbox: true,
      timeoutMs: 60_000,
      simOutcome: 'manual',
      simDelayMs: 3_000,
      simWebhookShape: 'event',
      simWebhookUrl: undefined,
    },
    wallet: { mode: 'simulator', baseUrl: undefined, timeoutMs: 60_000 },
    simulatorControl: true,
  };
}

/** A webhook deliverer that hands the request to a Fastify app through `inject` (no socket). */
export function injectDeliverer(app: Pick<FastifyInstance, 'inject'>): WebhookDeliverer {
  return async (req) => {
    const url = new URL(req.url);
    const res = await app.inject({ method: 'POST', url: url.pathname + url.search, headers: req.headers, payload: req.body });
    return { status: res.statusCode };
  };
}

export function makePaymentProviders(
  config: Pick<Config, 'publicUrl' | 'payments'>,
  opts: PaymentProvidersOptions = {},
): PaymentProviders {
  const cfg = config.payments ?? defaultPaymentsConfig();
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? silentLogger;
  const fetch = opts.fetch;
  const simulators: PaymentProviders['simulators'] = {};

  // ---- gateway_a
  const g = cfg.gatewayA;
  let gatewayA: GatewayAClient | null = null;
  if (g.mode === 'live') {
    gatewayA = new HttpGatewayAClient({
      baseUrl: g.baseUrl,
      clientId: g.clientId!,
      clientSecret: g.clientSecret!,
      sandbox: g.sandbox,
      timeoutMs: g.timeoutMs,
      fetch,
      clock,
      log,
    });
    if (!g.webhookSecret) log.warn('GATEWAY_A_WEBHOOK_SECRET is not set: gateway_a webhooks will be accepted without a signature check');
  } else if (g.mode === 'simulator') {
    const clientId = g.clientId ?? GATEWAY_A_SIM_CLIENT_ID;
    const clientSecret = g.clientSecret ?? GATEWAY_A_SIM_CLIENT_SECRET;
    if (g.baseUrl) {
      // A standalone simulator (npx tsx src/integrations/gateway-a/simulator.ts) reached over HTTP.
      gatewayA = new HttpGatewayAClient({ baseUrl: g.baseUrl, clientId, clientSecret, sandbox: g.sandbox, timeoutMs: g.timeoutMs, fetch, clock, log });
    } else {
      const sim = createGatewayASimulator({
        clientId,
        clientSecret,
        webhookUrl: g.simWebhookUrl ?? joinUrl(config.publicUrl, GATEWAY_A_WEBHOOK_PATH),
        webhookSecret: g.webhookSecret,
        webhookShape: g.simWebhookShape,
        deliver: opts.gatewayAWebhook,
        outcome: g.simOutcome,
        outcomeDelayMs: g.simDelayMs,
        clock,
        fetch,
        log,
      });
      simulators.gatewayA = sim;
      const server = sim.buildServer(); // closed by sim.close()
      gatewayA = new HttpGatewayAClient({
        baseUrl: 'http://gateway-a.simulator.internal',
        clientId,
        clientSecret,
        sandbox: g.sandbox,
        timeoutMs: g.timeoutMs,
        fetch: injectFetch(server),
        clock,
        log,
      });
    }
  }

  // ---- wallet
  const w = cfg.wallet;
  let wallet: WalletClient;
  if (w.mode === 'live' || w.baseUrl) {
    wallet = new HttpWalletClient({ baseUrl: w.baseUrl, timeoutMs: w.timeoutMs, fetch, log });
  } else {
    const sim = createWalletSimulator({ clock, log });
    simulators.wallet = sim;
    const server = sim.buildServer(); // closed by sim.close()
    wallet = new HttpWalletClient({ baseUrl: 'http://wallet.simulator.internal', timeoutMs: w.timeoutMs, fetch: injectFetch(server), log });
  }

  return {
    gatewayA,
    gatewayAWebhookSecret: g.mode === 'off' ? undefined : g.webhookSecret,
    wallet,
    simulators,
    async mountSimulators(app) {
      const control = cfg.simulatorControl;
      if (simulators.gatewayA) await app.register(simulators.gatewayA.routes, { prefix: GATEWAY_A_SIM_PREFIX, control });
      if (simulators.wallet) await app.register(simulators.wallet.routes, { prefix: WALLET_SIM_PREFIX, control });
    },
    describe(baseUrl) {
      const lines: string[] = [];
      const gw = simulators.gatewayA ? `${baseUrl}${GATEWAY_A_SIM_PREFIX}` : null;
      if (g.mode === 'off') lines.push('gateway_a:  off (card payments are confirmed by hand)');
      else if (g.mode === 'live') lines.push(`gateway_a:  live${g.sandbox ? ' (sandbox)' : ''}`);
      else if (!gw) lines.push(`gateway_a:  simulator at ${g.baseUrl}`);
      else if (!cfg.simulatorControl) {
        lines.push(`gateway_a:  in-process simulator at ${gw}  (control API off in production)`);
        if (g.simOutcome !== 'manual') lines.push(`            answers by itself: ${g.simOutcome} after ${g.simDelayMs} ms`);
      } else {
        lines.push(`gateway_a:  in-process simulator at ${gw}  (intents: ${gw}/__sim/intents, from this machine only)`);
        lines.push(
          g.simOutcome === 'manual'
            ? `            approve on the "terminal": curl -X POST ${gw}/__sim/intents/<intentId>/approve   (or /decline)`
            : `            answers by itself: ${g.simOutcome} after ${g.simDelayMs} ms`,
        );
      }
      if (simulators.wallet) {
        const ws = `${baseUrl}${WALLET_SIM_PREFIX}`;
        lines.push(`wallet:     in-process simulator at ${ws}` + (cfg.simulatorControl ? `  (test cards: ${ws}/__sim, from this machine only)` : ''));
      } else lines.push(`wallet:     ${w.mode === 'live' ? 'live' : `simulator at ${w.baseUrl}`}`);
      return lines;
    },
    async close() {
      await Promise.all([simulators.gatewayA?.close(), simulators.wallet?.close()]);
    },
  };
}
