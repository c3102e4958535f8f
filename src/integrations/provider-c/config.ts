import type { EnvReader } from '../../platform/env.js';

/** Spec 8 gives no deadline for the delivery platforms: 10 s, well under the order queue's backoff. */
export const PROVIDER_C_TIMEOUT_MS = 10_000;

/**
 * provider_c: the real platform (`live`), a simulator speaking its protocol, or `off`. The credentials
 * (`clientId`, `clientSecret`, `merchantId` = the store id) and the webhook JWKS URL are per tenant (the
 * MarketplaceIntegration row), so they are not read here.
 */
export interface ProviderCConfig {
  /** `simulator` (default; required in production), `live`, or `off` (no provider_c client: nothing is pulled or pushed). */
  mode: 'simulator' | 'live' | 'off';
  /** Live: the API (default `https://api.uber.com`). Simulator: a standalone simulator; unset = in-process. */
  baseUrl: string | undefined;
  /** Where `/oauth/v2/token` lives. Live default `https://login.uber.com`; otherwise the base URL. */
  authUrl: string | undefined;
  timeoutMs: number;
}

/** PROVIDER_C_* variables (README, "Configuration"). */
export function parseProviderCConfig(env: EnvReader): ProviderCConfig {
  env.requireInProduction('PROVIDER_C_MODE');
  return {
    mode: env.choice('PROVIDER_C_MODE', ['simulator', 'live', 'off'] as const, 'simulator'),
    baseUrl: env.httpUrl('PROVIDER_C_BASE_URL'),
    authUrl: env.httpUrl('PROVIDER_C_AUTH_URL'),
    timeoutMs: env.int('PROVIDER_C_TIMEOUT_MS', PROVIDER_C_TIMEOUT_MS, 1_000, 120_000),
  };
}

/** A hand-built configuration (tests): the in-process simulator. */
export function defaultProviderCConfig(): ProviderCConfig {
  return { mode: 'simulator', baseUrl: undefined, authUrl: undefined, timeoutMs: PROVIDER_C_TIMEOUT_MS };
}
