import { randomBytes } from 'node:crypto';
import type { EnvReader } from '../../platform/env.js';
import { PROVIDER_B_COOKING_TIME_MINUTES, PROVIDER_B_DEFAULT_AUDIENCE, PROVIDER_B_TIMEOUT_MS } from './client.js';

/**
 * provider_b: the real platform (`live`), a simulator speaking its protocol, or `off`. Client credentials,
 * store id and webhook secret are per tenant (MarketplaceIntegration), not configuration.
 */
export interface ProviderBConfig {
  /** `simulator` (default), `live`, or `off` (provider_b integrations cannot be used: client null). */
  mode: 'simulator' | 'live' | 'off';
  /** Live: the platform's API (required). Simulator: a standalone simulator; unset = in-process. */
  baseUrl: string | undefined;
  timeoutMs: number;
  /** `audience` of the token request. */
  audience: string;
  /** Minutes sent when an order is taken (TAKEN). */
  cookingTimeMinutes: number;
  /** In-process simulator: the secret it signs webhooks with unless a control call gives another (kept in the data dir). */
  simWebhookSecret: string | undefined;
}

/** PROVIDER_B_* variables (README, "Configuration"). */
export function parseProviderBConfig(env: EnvReader): ProviderBConfig {
  env.requireInProduction('PROVIDER_B_MODE');
  const mode = env.choice('PROVIDER_B_MODE', ['simulator', 'live', 'off'] as const, 'simulator');
  const baseUrl = env.httpUrl('PROVIDER_B_BASE_URL');
  if (mode === 'live' && !baseUrl) throw env.fail('PROVIDER_B_MODE=live needs PROVIDER_B_BASE_URL');
  const inProcess = mode === 'simulator' && !baseUrl;
  return {
    mode,
    baseUrl,
    timeoutMs: env.int('PROVIDER_B_TIMEOUT_MS', PROVIDER_B_TIMEOUT_MS, 1_000, 120_000),
    audience: env.string('PROVIDER_B_AUDIENCE') || PROVIDER_B_DEFAULT_AUDIENCE,
    cookingTimeMinutes: env.int('PROVIDER_B_COOKING_TIME_MINUTES', PROVIDER_B_COOKING_TIME_MINUTES, 1, 240),
    simWebhookSecret: inProcess ? env.string('PROVIDER_B_SIM_WEBHOOK_SECRET') || env.keptSecret('provider-b-sim-webhook-secret') : undefined,
  };
}

/** A hand-built configuration (tests): the in-process simulator with a fresh webhook secret. */
export function defaultProviderBConfig(): ProviderBConfig {
  return {
    mode: 'simulator',
    baseUrl: undefined,
    timeoutMs: PROVIDER_B_TIMEOUT_MS,
    audience: PROVIDER_B_DEFAULT_AUDIENCE,
    cookingTimeMinutes: PROVIDER_B_COOKING_TIME_MINUTES,
    simWebhookSecret: randomBytes(32).toString('hex'),
  };
}
