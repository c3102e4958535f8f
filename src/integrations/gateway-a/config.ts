import type { EnvReader } from '../../platform/env.js';
import { defaultProviderSettings, parseProviderSettings, type ProviderSettings } from '../provider-config.js';

/** gateway_a: the real endpoint (`live`), a simulator speaking its protocol, or `off`. */
export interface GatewayAConfig extends ProviderSettings {
  /** `simulator` (default), `live`, or `off` (gateway_a not configured: payments fall back to manual confirmation). */
  mode: 'simulator' | 'live' | 'off';
  /** Live: the gateway (default chosen by `sandbox`). Simulator: a standalone simulator; unset = in-process. */
  baseUrl: string | undefined;
  /** Unset: webhook signatures are not checked and a warning is logged (spec 5.6). */
  webhookSecret: string | undefined;
  sandbox: boolean;
  timeoutMs: number;
  /** In-process simulator: who decides an intent (`manual` = a person or a test, via its control API). */
  simOutcome: 'manual' | 'approve' | 'decline';
  simDelayMs: number;
  simWebhookShape: 'event' | 'external';
  /** In-process simulator: where it posts webhooks; default `<publicUrl>/api/gateway-a/webhook`. */
  simWebhookUrl: string | undefined;
}

/** GATEWAY_A_* variables (README, "Configuration"). */
export function parseGatewayAConfig(env: EnvReader): GatewayAConfig {
  return {
    ...parseProviderSettings(env, 'GATEWAY_A', { secretFile: 'gateway-a-webhook-secret' }),
    sandbox: env.flag('GATEWAY_A_SANDBOX', true),
    timeoutMs: env.int('GATEWAY_A_TIMEOUT_MS', 60_000, 1_000, 120_000),
    simOutcome: env.choice('GATEWAY_A_SIM_OUTCOME', ['manual', 'approve', 'decline'] as const, 'manual'),
    simDelayMs: env.int('GATEWAY_A_SIM_DELAY_MS', 3_000, 0, 600_000),
    simWebhookShape: env.choice('GATEWAY_A_SIM_WEBHOOK_SHAPE', ['event', 'external'] as const, 'event'),
    simWebhookUrl: env.httpUrl('GATEWAY_A_SIM_WEBHOOK_URL'),
  };
}

/** A hand-built configuration (tests): the in-process simulator with a fresh webhook secret. */
export function defaultGatewayAConfig(): GatewayAConfig {
  return {
    ...defaultProviderSettings(),
    sandbox: true,
    timeoutMs: 60_000,
    simOutcome: 'manual',
    simDelayMs: 3_000,
    simWebhookShape: 'event',
    simWebhookUrl: undefined,
  };
}
