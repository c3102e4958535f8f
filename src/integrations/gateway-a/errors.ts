import { IntegrationError } from '../errors.js';

/** A failure of the card-terminal gateway: `unavailable` (retry later) or `refused` (with its code). */
export class GatewayAError extends IntegrationError {
  static readonly provider = 'gateway_a';
}
