import { IntegrationError } from '../errors.js';

/** A failure of the Rappi-like delivery platform: `unavailable` (retry later) or `refused` (with its code). */
export class ProviderBError extends IntegrationError {
  static readonly provider = 'provider_b';
}

/**
 * A body provider_b sent (a webhook, or an order of its API) that cannot be read into the service's
 * shapes: the webhook route answers it 400; the client turns it into a `ProviderBError` (bad_response).
 */
export class ProviderBPayloadError extends Error {
  constructor(message: string) {
    super(`provider_b: ${message}`);
    this.name = 'ProviderBPayloadError';
  }
}
