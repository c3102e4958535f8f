/**
 * Typed failures of the external payment providers, so callers can tell
 * "try again later" (unavailable) from "the provider said no" (refused).
 */
export type ProviderName = 'gateway_a' | 'wallet';

export type UnavailableReason = 'timeout' | 'network' | 'server_error' | 'rate_limited' | 'bad_response';

export abstract class PaymentProviderError extends Error {
  abstract readonly kind: 'unavailable' | 'refused';
  constructor(
    readonly provider: ProviderName,
    message: string,
    /** HTTP status the provider answered, when it answered. */
    readonly status?: number,
    /** Provider's error code (e.g. `invalid_client`, `terminal_busy`), when known. */
    readonly code?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The provider could not be reached, did not answer in time, or failed on its side (5xx, 429). */
export class ProviderUnavailableError extends PaymentProviderError {
  readonly kind = 'unavailable' as const;
  constructor(
    provider: ProviderName,
    message: string,
    readonly reason: UnavailableReason,
    status?: number,
    code?: string,
    options?: { cause?: unknown },
  ) {
    super(provider, message, status, code, options);
  }
}

/** The provider answered and refused the request (4xx): bad credentials, unknown terminal, conflict... */
export class ProviderRefusedError extends PaymentProviderError {
  readonly kind = 'refused' as const;
}

export const isProviderError = (err: unknown): err is PaymentProviderError => err instanceof PaymentProviderError;
