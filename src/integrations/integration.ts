/**
 * The one shape of an integration (`src/integrations/<name>/index.ts` exports one `Integration`):
 * it parses its own environment variables, and builds its client from that configuration, either
 * against the real endpoint, a standalone simulator, or a simulator inside this process.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../platform/clock.js';
import type { EnvReader } from '../platform/env.js';
import type { FetchLike, ProviderLogger } from './http.js';
import type { SimulatorServer } from './simulator/server.js';
import type { WebhookDeliverer } from './simulator/webhook-delivery.js';

export type IntegrationKind = 'payment' | 'fiscal' | 'pix' | 'delivery';

/** What `create` gets besides its own configuration. */
export interface IntegrationDeps {
  /** The service's public base URL (where an in-process simulator sends webhooks unless told otherwise). */
  publicUrl: string;
  clock: Clock;
  log: ProviderLogger;
  /** fetch for live endpoints and standalone simulators (default: global fetch). */
  fetch?: FetchLike;
  /** How in-process simulators send their webhooks; the app passes `injectDeliverer(app)`. Default: HTTP POST. */
  deliverWebhook?: WebhookDeliverer;
  /** Serve the in-process simulators' control API (to callers on this machine). False when NODE_ENV=production. */
  simulatorControl: boolean;
}

/** What `create` returns: the typed handle consumers get by name (`integrations.gatewayA.client`). */
export interface BuiltIntegration<Client = unknown> {
  /** The client behind its interface; null when the integration is switched off. */
  client: Client;
  /** The simulator running in this process, when there is one (tests drive it directly). */
  simulator?: unknown;
  /** Serves the in-process simulator on the service's server, under `/__sim/<folder>`. */
  mount?(app: FastifyInstance): Promise<void>;
  /** Banner lines given the service's base URL: the mode first, then details (`npm start` prints them). */
  describe(baseUrl: string): string[];
  /** Stops the simulator's timers, webhook retries and servers. */
  close(): Promise<void>;
}

export interface Integration<Name extends string = string, Config = unknown, Built extends BuiltIntegration = BuiltIntegration> {
  /** Key in `IntegrationsConfig` and `Integrations` (camelCase: `gatewayA`). */
  name: Name;
  /** Provider name in errors, logs and the banner (`gateway_a`): its error class's `provider`. */
  provider: string;
  kind: IntegrationKind;
  /** Reads its environment variables (`GATEWAY_A_*`), with defaults and production rules. */
  parseConfig(env: EnvReader): Config;
  /** The configuration of a hand-built service config (tests): the in-process simulator. */
  defaultConfig(): Config;
  create(config: Config, deps: IntegrationDeps): Built;
}

/** Keeps the literal name and the exact config and handle types of an integration (for the registry's typing). */
export function defineIntegration<const Name extends string, Config, Built extends BuiltIntegration>(
  integration: Integration<Name, Config, Built>,
): Integration<Name, Config, Built> {
  return integration;
}

/** `mount` and `close` of a handle whose simulator may run in this process: served under `prefix`, its control API when `control`. */
export function simulatorLifecycle(
  simulator: Pick<SimulatorServer, 'routes' | 'close'> | undefined,
  prefix: string,
  control: boolean,
): Required<Pick<BuiltIntegration, 'mount' | 'close'>> {
  return {
    async mount(app: FastifyInstance) {
      if (simulator) await app.register(simulator.routes, { prefix, control });
    },
    async close() {
      await simulator?.close();
    },
  };
}
