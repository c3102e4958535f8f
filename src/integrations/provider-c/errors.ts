import { IntegrationError } from '../errors.js';

/** A failure of provider_c (the Uber Eats-like platform): `unavailable` (retry later) or `refused` (with its code). */
export class ProviderCError extends IntegrationError {
  static readonly provider = 'provider_c';
}
