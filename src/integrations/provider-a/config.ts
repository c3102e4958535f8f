import { randomBytes } from 'node:crypto';
import type { EnvReader } from '../../platform/env.js';
import type { ProviderAWebhookShape } from './simulator/state.js';

/** provider_a: the real platform (`live`), a simulator speaking its protocol, or `off`. */
export interface ProviderAConfig {
  /** `simulator` (default), `live`, or `off` (no provider_a client: its orders, syncs and pushes are refused or skipped). */
  mode: 'simulator' | 'live' | 'off';
  /** Live: the platform (default its production host). Simulator: a standalone simulator; unset = in-process. */
  baseUrl: string | undefined;
  timeoutMs: number;
  /**
   * The in-process simulator's signing secret (PROVIDER_A_WEBHOOK_SECRET, else generated once and kept in the
   * data dir): what a tenant's integration must hold as its webhook secret to accept the simulator's webhooks.
   * Each tenant's real secret lives in its integration, not here.
   */
  simWebhookSecret: string | undefined;
  /** In-process simulator: whether its webhooks carry only the reference (the real platform) or the whole order. */
  simWebhookShape: ProviderAWebhookShape;
  /** In-process simulator: where webhooks go when the control call names no URL. */
  simWebhookUrl: string | undefined;
}

/** PROVIDER_A_* variables (README, "Configuration"). */
export function parseProviderAConfig(env: EnvReader): ProviderAConfig {
  env.requireInProduction('PROVIDER_A_MODE');
  const mode = env.choice('PROVIDER_A_MODE', ['simulator', 'live', 'off'] as const, 'simulator');
  const baseUrl = env.httpUrl('PROVIDER_A_BASE_URL');
  const inProcess = mode === 'simulator' && !baseUrl;
  return {
    mode,
    baseUrl,
    timeoutMs: env.int('PROVIDER_A_TIMEOUT_MS', 10_000, 1_000, 120_000),
    simWebhookSecret: env.string('PROVIDER_A_WEBHOOK_SECRET') || (inProcess ? env.keptSecret('provider-a-webhook-secret') : undefined),
    simWebhookShape: env.choice('PROVIDER_A_SIM_WEBHOOK_SHAPE', ['reference', 'full'] as const, 'reference'),
    simWebhookUrl: env.httpUrl('PROVIDER_A_SIM_WEBHOOK_URL'),
  };
}

/** A hand-built configuration (tests): the in-process simulator with a fresh signing secret (the handle's `simulatorWebhookSecret`). */
export function defaultProviderAConfig(): ProviderAConfig {
  const simWebhookSecret = randomBytes(32).toString('hex');
  return { mode: 'simulator', baseUrl: undefined, timeoutMs: 10_000, simWebhookSecret, simWebhookShape: 'reference', simWebhookUrl: undefined };
}
