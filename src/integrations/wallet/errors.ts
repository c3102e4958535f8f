import { IntegrationError } from '../errors.js';

/** A failure of the online wallet gateway: `unavailable` (retry later) or `refused` (with its code). */
export class WalletError extends IntegrationError {
  static readonly provider = 'wallet';
}
