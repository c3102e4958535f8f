import { IntegrationError } from '../errors.js';

/** A failure of provider_a (the iFood-like platform): `unavailable` (retry later) or `refused` (with its code). */
export class ProviderAError extends IntegrationError {
  static readonly provider = 'provider_a';
}

/**
 * A body provider_a sent (webhook event or order details) that cannot be read: not the platform's
 * refusal, a payload problem. `path` names the field (`items[0].unitPrice`).
 */
export class ProviderAPayloadError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`provider_a payload: ${path ? `${path}: ` : ''}${message}`);
    this.name = 'ProviderAPayloadError';
  }
}
