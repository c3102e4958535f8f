/**
 * Failures of external systems, one base for every integration: callers tell "try again later"
 * (`unavailable`, retryable) from "the provider said no" (`refused`) without knowing which provider
 * it was, and each integration throws its own subclass (`GatewayAError`, `WalletError`...).
 */
export type IntegrationFailure = 'unavailable' | 'refused';

export type UnavailableReason = 'timeout' | 'network' | 'server_error' | 'rate_limited' | 'bad_response';

export interface IntegrationErrorDetails {
  /** HTTP status the provider answered, when it answered. */
  status?: number;
  /** Provider's error code (e.g. `invalid_client`, `terminal_busy`), when known. */
  code?: string;
  /** Why an `unavailable` failure happened. */
  reason?: UnavailableReason;
  cause?: unknown;
}

/** An integration's error class: constructible by the shared HTTP helpers, named by its provider. */
export interface IntegrationErrorClass {
  new (kind: IntegrationFailure, message: string, details?: IntegrationErrorDetails): IntegrationError;
  /** Provider name in messages and logs, e.g. `gateway_a`. */
  readonly provider: string;
}

export abstract class IntegrationError extends Error {
  /** Provider name (`gateway_a`, `wallet`...), from the subclass's static `provider`. */
  readonly provider: string;
  /** True when the same request may succeed later (provider unreachable, slow, 5xx, 429). */
  readonly retryable: boolean;
  readonly status?: number;
  readonly code?: string;
  readonly reason?: UnavailableReason;

  constructor(
    /** `unavailable`: not reached, no answer in time, failed on its side. `refused`: it answered no (4xx). */
    readonly kind: IntegrationFailure,
    message: string,
    details: IntegrationErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.provider = (new.target as unknown as IntegrationErrorClass).provider;
    this.retryable = kind === 'unavailable';
    if (details.status !== undefined) this.status = details.status;
    if (details.code !== undefined) this.code = details.code;
    if (details.reason !== undefined) this.reason = details.reason;
  }
}

export const isIntegrationError = (err: unknown): err is IntegrationError => err instanceof IntegrationError;

/** The provider answered and refused the request (4xx): bad credentials, unknown terminal, conflict... */
export const isRefused = (err: unknown): err is IntegrationError => isIntegrationError(err) && err.kind === 'refused';

/** The provider could not be reached, did not answer in time, or failed on its side (5xx, 429). */
export const isUnavailable = (err: unknown): err is IntegrationError => isIntegrationError(err) && err.kind === 'unavailable';
