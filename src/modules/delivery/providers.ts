/**
 * One adapter per delivery platform over its folder (`src/integrations/provider-a|b|c`): how its webhook is
 * authenticated on the raw bytes and how its body is read. The ingestion service knows nothing else of a
 * provider's protocol.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { DeliveryProvider } from '../../db/schema/delivery.js';
import type { DeliveryWebhookEvent } from '../../integrations/delivery.js';
import type { Integrations } from '../../integrations/registry.js';
import { checkProviderASignature, parseProviderAWebhook, PROVIDER_A_SIGNATURE_HEADER } from '../../integrations/provider-a/index.js';
import { parseProviderBWebhook, PROVIDER_B_SIGNATURE_HEADER } from '../../integrations/provider-b/index.js';
import { parseProviderCWebhook } from '../../integrations/provider-c/index.js';

/** What the adapters read of an integration (the integrations service's `IntegrationRecord` has it). */
export interface WebhookIntegration {
  id: string;
  provider: DeliveryProvider;
  credentials: { merchantId: string };
  webhookSecret: string | null;
  jwksUrl: string | null;
}

/**
 * `valid`: signed by the platform; `sandbox`: the integration has no secret (or no JWKS URL) to check with,
 * accepted with a warning; `invalid`: answer 401 and write nothing; `unavailable`: the keys could not be read
 * (provider_c's JWKS down): answer 503 so that the platform sends it again.
 */
export type VerifyResult = 'valid' | 'sandbox' | { invalid: string } | 'unavailable';

export interface ProviderAdapter {
  provider: DeliveryProvider;
  /** The header that carries the signature (documentation and logs). */
  signatureHeader: string;
  verify(rawBody: Buffer, headers: IncomingHttpHeaders, integration: WebhookIntegration): Promise<VerifyResult>;
  /** Reads a verified body (already JSON-parsed); throws on a body that is not one of the platform's events (400). */
  parse(body: unknown): DeliveryWebhookEvent;
}

export type ProviderAdapters = Record<DeliveryProvider, ProviderAdapter>;

export function providerAdapters(integrations: Integrations): ProviderAdapters {
  return {
    provider_a: {
      provider: 'provider_a',
      signatureHeader: PROVIDER_A_SIGNATURE_HEADER,
      async verify(rawBody, headers, integration) {
        const check = checkProviderASignature(rawBody, headers[PROVIDER_A_SIGNATURE_HEADER], integration.webhookSecret ?? undefined);
        if (check.valid) return 'valid';
        return check.reason === 'missing_secret' ? 'sandbox' : { invalid: check.reason };
      },
      parse: parseProviderAWebhook,
    },
    provider_b: {
      provider: 'provider_b',
      signatureHeader: PROVIDER_B_SIGNATURE_HEADER,
      async verify(rawBody, headers, integration) {
        // The handle's check measures the signature's age with the app's clock.
        const check = integrations.providerB.checkSignature(rawBody, headers[PROVIDER_B_SIGNATURE_HEADER], integration.webhookSecret ?? undefined);
        if (check.valid) return 'valid';
        return check.reason === 'missing_secret' ? 'sandbox' : { invalid: check.reason };
      },
      parse: parseProviderBWebhook,
    },
    provider_c: {
      provider: 'provider_c',
      signatureHeader: 'authorization',
      async verify(rawBody, headers, integration) {
        const check = await integrations.providerC.verifyWebhook(rawBody, headers.authorization, integration.jwksUrl, {
          audience: integration.credentials.merchantId,
        });
        if (check.valid) return 'valid';
        if (check.reason === 'missing_jwks_url') return 'sandbox';
        if (check.reason === 'jwks_unavailable') return 'unavailable';
        return { invalid: check.reason };
      },
      parse: parseProviderCWebhook,
    },
  };
}
