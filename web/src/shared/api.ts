/**
 * Tiny JSON client for the pages: same origin, JSON in and out, `Authorization` when a token is given.
 * A non-2xx answer throws an ApiError carrying the status and the API's error body: `code` (`validation`,
 * `not_found`...; `error` holds the HTTP reason), `message`, and the field errors of a 400 in `details`.
 */

import { inPortuguese } from './messages.js';

/** One field error of a 400 `validation` answer: `field` is the request path (`body.customerName`). */
export interface FieldError {
  field: string;
  message: string;
}

export class ApiError extends Error {
  /** The field errors, their common validation messages said in Portuguese (messages.ts). */
  readonly fields: FieldError[];

  constructor(
    readonly status: number,
    /** The API's error code (`validation`, `not_found`...), or `network` when the request never got an answer. */
    readonly code: string,
    message: string,
    fields: FieldError[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
    this.fields = fields.map((f) => ({ field: f.field, message: inPortuguese(f.message) }));
  }

  /** The message of the field error whose path ends with `name` (`customerName` matches `body.customerName`). */
  fieldMessage(name: string): string | undefined {
    return this.fields.find((f) => f.field === name || f.field.endsWith(`.${name}`))?.message;
  }
}

export interface ApiOptions {
  method?: string;
  body?: unknown;
  /** A bearer token (staff pages); guests call public routes without one. */
  token?: string | null;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Calls `path` (same origin) and returns its parsed JSON body (undefined for 204). */
export async function api<T>(path: string, opts: ApiOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let res: Response;
  try {
    res = await fetch(path, {
      method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: opts.signal,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'network', err instanceof Error ? err.message : String(err));
  }
  const text = await res.text();
  let data: unknown = undefined;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
  }
  if (!res.ok) {
    const body = (data ?? {}) as { code?: string; error?: string; message?: string; details?: FieldError[]; fields?: FieldError[] };
    const fields = Array.isArray(body.details) ? body.details : Array.isArray(body.fields) ? body.fields : [];
    throw new ApiError(res.status, body.code ?? body.error ?? 'http_error', body.message ?? res.statusText, fields);
  }
  return data as T;
}

/** A random UUID v4 (an `Idempotency-Key`); falls back to getRandomValues where randomUUID is missing (plain HTTP). */
export function uuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
