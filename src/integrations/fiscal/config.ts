import type { EnvReader } from '../../platform/env.js';

/** Request timeout unless configured. */
export const FISCAL_PROVIDER_TIMEOUT_MS = 30_000;

/** The NF-e / NFC-e provider (`live`), a simulator speaking its protocol (default outside production), or `off`. */
export interface FiscalProviderConfig {
  /** `simulator` (default), `live`, or `off` (emission answers 503). In production the default is `off`. */
  mode: 'simulator' | 'live' | 'off';
  /** Live: the provider's base URL (required). Simulator: a standalone simulator; unset = in-process. */
  baseUrl: string | undefined;
  timeoutMs: number;
}

/** FISCAL_PROVIDER_* variables. Each tenant's token is its own (tenant settings `fiscalProviderToken`). */
export function parseFiscalProviderConfig(env: EnvReader): FiscalProviderConfig {
  // A simulator must never authorise documents in production by default: there the default is `off`.
  const mode = env.choice('FISCAL_PROVIDER_MODE', ['simulator', 'live', 'off'] as const, env.production ? 'off' : 'simulator');
  const baseUrl = env.httpUrl('FISCAL_PROVIDER_BASE_URL');
  if (mode === 'live' && !baseUrl) throw env.fail('FISCAL_PROVIDER_MODE=live needs FISCAL_PROVIDER_BASE_URL');
  return { mode, baseUrl, timeoutMs: env.int('FISCAL_PROVIDER_TIMEOUT_MS', FISCAL_PROVIDER_TIMEOUT_MS, 1_000, 120_000) };
}

/** A hand-built configuration (tests): the in-process simulator. */
export function defaultFiscalProviderConfig(): FiscalProviderConfig {
  return { mode: 'simulator', baseUrl: undefined, timeoutMs: FISCAL_PROVIDER_TIMEOUT_MS };
}
