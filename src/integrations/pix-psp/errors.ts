import { IntegrationError } from '../errors.js';

/** A failure of the PIX PSP: `unavailable` (retry later) or `refused` (with the problem type of the API Pix as `code`). */
export class PixPspError extends IntegrationError {
  static readonly provider = 'pix_psp';
}
