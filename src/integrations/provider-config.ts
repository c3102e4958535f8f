/**
 * The settings every OAuth provider with signed webhooks reads the same way (`<P>_MODE`, `<P>_BASE_URL`,
 * `<P>_CLIENT_ID`, `<P>_CLIENT_SECRET`, `<P>_WEBHOOK_SECRET`), shared by the integrations' `config.ts`.
 */
import { randomBytes } from 'node:crypto';
import type { EnvReader } from '../platform/env.js';

export interface ProviderSettings {
  /** `simulator` (default), `live`, or `off`. */
  mode: 'simulator' | 'live' | 'off';
  /** Live: the provider. Simulator: a standalone simulator; unset = in-process. */
  baseUrl: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
  /** Unset: webhook signatures are not checked and a warning is logged. */
  webhookSecret: string | undefined;
}

/**
 * Reads `<prefix>_MODE` (required in production: the simulators' control API approves payments, so
 * production must choose on purpose), the base URL, the client credentials (which `live` needs, with the
 * base URL when `liveNeedsBaseUrl`) and the webhook secret. The in-process simulator and the webhook route
 * share one secret, generated once and kept in the data dir under `secretFile` unless set.
 */
export function parseProviderSettings(env: EnvReader, prefix: string, opts: { secretFile: string; liveNeedsBaseUrl?: boolean }): ProviderSettings {
  const name = (suffix: string) => `${prefix}_${suffix}`;
  env.requireInProduction(name('MODE'));
  const mode = env.choice(name('MODE'), ['simulator', 'live', 'off'] as const, 'simulator');
  const baseUrl = env.httpUrl(name('BASE_URL'));
  const clientId = env.string(name('CLIENT_ID'));
  const clientSecret = env.string(name('CLIENT_SECRET'));
  const needed = [...(opts.liveNeedsBaseUrl ? ['BASE_URL'] : []), 'CLIENT_ID', 'CLIENT_SECRET'].map(name);
  if (mode === 'live' && needed.some((n) => !env.string(n))) {
    throw env.fail(`${name('MODE')}=live needs ${needed.slice(0, -1).join(', ')} and ${needed.at(-1)}`);
  }
  const inProcessSimulator = mode === 'simulator' && !baseUrl;
  const webhookSecret = env.string(name('WEBHOOK_SECRET')) || (inProcessSimulator ? env.keptSecret(opts.secretFile) : undefined);
  return { mode, baseUrl, clientId, clientSecret, webhookSecret };
}

/** Hand-built settings (tests): the in-process simulator with a fresh webhook secret. */
export function defaultProviderSettings(): ProviderSettings {
  return { mode: 'simulator', baseUrl: undefined, clientId: undefined, clientSecret: undefined, webhookSecret: randomBytes(32).toString('hex') };
}
