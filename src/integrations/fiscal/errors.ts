import { IntegrationError } from '../errors.js';

/** A failure of the fiscal provider: `unavailable` (retry later) or `refused` (it answered no, e.g. a bad token). */
export class FiscalProviderError extends IntegrationError {
  static readonly provider = 'fiscal_provider';
}
