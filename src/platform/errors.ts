import { STATUS_CODES } from 'node:http';

export interface ErrorDetail {
  field: string;
  message: string;
}

/** An error of the platform's HTTP code, meant for the client: rendered as `{ statusCode, error, message, code?, details? }`. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly code?: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

// HTTP errors of the platform's own HTTP code (guards, idempotency, business-type hooks). Services throw the
// domain errors of `domain-errors.ts` instead, which `platform/http.ts` maps to a status.
export const invalidField = (field: string, message: string) =>
  new HttpError(400, `${field}: ${message}`, 'validation', [{ field, message }]);
export const unauthorized = (message = 'Authentication required') => new HttpError(401, message, 'unauthorized');
export const forbidden = (message = 'You do not have access to this resource', code = 'forbidden') =>
  new HttpError(403, message, code);
export const notFound = (what = 'Resource') => new HttpError(404, `${what} not found`, 'not_found');
export const conflict = (message: string, code = 'conflict', details?: ErrorDetail[]) =>
  new HttpError(409, message, code, details);

export function errorBody(statusCode: number, message: string, code?: string, details?: ErrorDetail[]) {
  return {
    statusCode,
    error: STATUS_CODES[statusCode] ?? 'Error',
    message,
    ...(code ? { code } : {}),
    ...(details && details.length ? { details } : {}),
  };
}
