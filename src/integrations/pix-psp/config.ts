import type { EnvReader } from '../../platform/env.js';
import { defaultProviderSettings, parseProviderSettings, type ProviderSettings } from '../provider-config.js';
import { PIX_PSP_TIMEOUT_MS } from './client.js';

/** pix_psp: a PSP of the Bacen API Pix (`live`), a simulator speaking its protocol, or `off`. */
export interface PixPspConfig extends ProviderSettings {
  /** `simulator` (default), `live`, or `off` (no dynamic PIX charges). */
  mode: 'simulator' | 'live' | 'off';
  /** Live: the PSP's API Pix base URL (required). Simulator: a standalone simulator; unset = in-process. */
  baseUrl: string | undefined;
  /** Key of `x-pix-psp-signature`. Unset: webhooks accepted without a signature check, with a warning. */
  webhookSecret: string | undefined;
  timeoutMs: number;
  /** In-process simulator: the webhook URL registered with it; default `<publicUrl>/api/pix-psp/webhook`. */
  simWebhookUrl: string | undefined;
}

/** PIX_PSP_* variables (README, "Configuration"). */
export function parsePixPspConfig(env: EnvReader): PixPspConfig {
  return {
    ...parseProviderSettings(env, 'PIX_PSP', { secretFile: 'pix-psp-webhook-secret', liveNeedsBaseUrl: true }),
    timeoutMs: env.int('PIX_PSP_TIMEOUT_MS', PIX_PSP_TIMEOUT_MS, 1_000, 120_000),
    simWebhookUrl: env.httpUrl('PIX_PSP_SIM_WEBHOOK_URL'),
  };
}

/** A hand-built configuration (tests): the in-process simulator with a fresh webhook secret. */
export function defaultPixPspConfig(): PixPspConfig {
  return {
    ...defaultProviderSettings(),
    timeoutMs: PIX_PSP_TIMEOUT_MS,
    simWebhookUrl: undefined,
  };
}
