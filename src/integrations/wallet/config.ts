import type { EnvReader } from '../../platform/env.js';

/** The online wallet gateway: the real endpoint (`live`) or a simulator speaking its protocol. */
export interface WalletConfig {
  mode: 'simulator' | 'live';
  /** Live: the gateway (default its production URL). Simulator: a standalone simulator; unset = in-process. */
  baseUrl: string | undefined;
  timeoutMs: number;
}

/** WALLET_* variables (README, "Configuration"). */
export function parseWalletConfig(env: EnvReader): WalletConfig {
  // The simulators' control API can approve payments: production must choose the providers on purpose.
  env.requireInProduction('WALLET_MODE');
  return {
    mode: env.choice('WALLET_MODE', ['simulator', 'live'] as const, 'simulator'),
    baseUrl: env.httpUrl('WALLET_BASE_URL'),
    timeoutMs: env.int('WALLET_TIMEOUT_MS', 60_000, 1_000, 120_000),
  };
}

/** A hand-built configuration (tests): the in-process simulator. */
export function defaultWalletConfig(): WalletConfig {
  return { mode: 'simulator', baseUrl: undefined, timeoutMs: 60_000 };
}
