/**
 * Every external system the service talks to, and the one call that builds them all from the
 * configuration. Each integration is a folder with the same shape (docs/contributing.md, "Adding an
 * integration"); adding one is its folder plus one line in `INTEGRATIONS`.
 *
 * By default every integration runs its simulator inside this process, so `npm start` alone runs the
 * full flows; the clients still speak HTTP to them (through Fastify `inject`, no socket).
 */
import type { FastifyInstance } from 'fastify';
import { systemClock, type Clock } from '../platform/clock.js';
import type { EnvReader } from '../platform/env.js';
import { fiscal } from './fiscal/index.js';
import { gatewayA } from './gateway-a/index.js';
import { silentLogger, type FetchLike, type ProviderLogger } from './http.js';
import type { BuiltIntegration, Integration, IntegrationDeps } from './integration.js';
import { pixPsp } from './pix-psp/index.js';
import { providerA } from './provider-a/index.js';
import { providerB } from './provider-b/index.js';
import { providerC } from './provider-c/index.js';
import type { WebhookDeliverer } from './simulator/webhook-delivery.js';
import { wallet } from './wallet/index.js';

export { injectDeliverer } from './simulator/webhook-delivery.js';

/** The integrations, in banner order. Names must not clash with the methods of `Integrations`. */
export const INTEGRATIONS = [gatewayA, wallet, pixPsp, fiscal, providerA, providerB, providerC] as const;

type Registered = (typeof INTEGRATIONS)[number];
export type IntegrationName = Registered['name'];
type Named<N extends IntegrationName> = Extract<Registered, { name: N }>;

/** Each integration's own configuration by name, and what they share. */
export type IntegrationsConfig = { [N in IntegrationName]: ReturnType<Named<N>['parseConfig']> } & {
  /**
   * Whether the in-process simulators' control API (`/__sim/<name>/__sim/...`: approve intents, list
   * payments) is served, to loopback callers only. False when NODE_ENV=production.
   */
  simulatorControl: boolean;
};

/** The built integrations by name (`integrations.gatewayA.client`), and their lifecycle. */
export type Integrations = { readonly [N in IntegrationName]: ReturnType<Named<N>['create']> } & {
  /** Serves the in-process simulators under `/__sim/<name>` on the service's server. */
  mountSimulators(app: FastifyInstance): Promise<void>;
  /** Lines for the start-up banner, given the service's base URL. */
  describe(baseUrl: string): string[];
  /** Stops simulator timers and webhook retries. */
  close(): Promise<void>;
};

export interface IntegrationsOptions {
  /** fetch for live endpoints and standalone simulators (default: global fetch). */
  fetch?: FetchLike;
  clock?: Clock;
  log?: ProviderLogger;
  /**
   * How in-process simulators send their webhooks. Default: HTTP POST to their configured URL
   * (`<publicUrl>/api/...`); the app passes `injectDeliverer(app)`.
   */
  deliverWebhook?: WebhookDeliverer;
}

/** Each integration reads its own variables (`src/integrations/<name>/config.ts`). */
export function parseIntegrationsConfig(env: EnvReader): IntegrationsConfig {
  const config: Record<string, unknown> = {};
  for (const i of INTEGRATIONS) config[i.name] = i.parseConfig(env);
  return { ...config, simulatorControl: !env.production } as IntegrationsConfig;
}

/** For a configuration built by hand (tests): every integration on its in-process simulator. */
export function defaultIntegrationsConfig(): IntegrationsConfig {
  const config: Record<string, unknown> = {};
  for (const i of INTEGRATIONS) config[i.name] = i.defaultConfig();
  return { ...config, simulatorControl: true } as IntegrationsConfig;
}

/** Builds every integration; a hand-built config without `integrations` gets the in-process simulators. */
export function buildIntegrations(
  config: { publicUrl: string; integrations?: IntegrationsConfig },
  opts: IntegrationsOptions = {},
): Integrations {
  const cfg = config.integrations ?? defaultIntegrationsConfig();
  const deps: IntegrationDeps = {
    publicUrl: config.publicUrl,
    clock: opts.clock ?? systemClock,
    log: opts.log ?? silentLogger,
    fetch: opts.fetch,
    deliverWebhook: opts.deliverWebhook,
    simulatorControl: cfg.simulatorControl,
  };
  const built: [Integration, BuiltIntegration][] = [];
  try {
    for (const i of INTEGRATIONS as readonly Integration[]) {
      const own = (cfg as Record<string, unknown>)[i.name];
      built.push([i, i.create(own ?? i.defaultConfig(), deps)]);
    }
  } catch (err) {
    void Promise.allSettled(built.map(([, b]) => b.close())); // the simulators already started
    throw err;
  }
  return Object.assign(Object.fromEntries(built.map(([i, b]) => [i.name, b])), {
    async mountSimulators(app: FastifyInstance) {
      for (const [, b] of built) await b.mount?.(app);
    },
    describe(baseUrl: string) {
      // `gateway_a:  <mode>` and the details under it, aligned.
      return built.flatMap(([i, b]) => b.describe(baseUrl).map((line, n) => (n === 0 ? `${i.provider}:`.padEnd(11) + ' ' : ' '.repeat(12)) + line));
    },
    async close() {
      await Promise.all(built.map(([, b]) => b.close()));
    },
  }) as unknown as Integrations;
}
