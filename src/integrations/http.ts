import type { FastifyBaseLogger } from 'fastify';
import type { IntegrationError, IntegrationErrorClass } from './errors.js';

/** The subset of `fetch` the clients use; tests and the in-process simulators pass their own. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export type ProviderLogger = Pick<FastifyBaseLogger, 'debug' | 'info' | 'warn' | 'error'>;

const noop = () => {};
export const silentLogger: ProviderLogger = { debug: noop, info: noop, warn: noop, error: noop };

export interface ProviderResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the text when the body is not JSON, or null when empty. */
  body: unknown;
}

export interface ProviderRequest {
  /** The integration's error class: failures are thrown as it (and named by its provider). */
  errors: IntegrationErrorClass;
  fetch: FetchLike;
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

/**
 * One HTTP call with a hard deadline covering the whole exchange (connect, headers and body).
 * Transport failures become the integration's error, kind `unavailable`; any HTTP status is returned as is.
 */
export async function callProvider(req: ProviderRequest): Promise<ProviderResponse> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), req.timeoutMs);
  try {
    const res = await req.fetch(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: controller.signal,
    });
    const text = await res.text();
    let body: unknown = null;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    return { status: res.status, headers: res.headers, body };
  } catch (err) {
    const provider = req.errors.provider;
    if (controller.signal.aborted) {
      throw new req.errors('unavailable', `${provider} did not answer ${req.method} ${pathOf(req.url)} within ${req.timeoutMs} ms`, {
        reason: 'timeout',
        cause: err,
      });
    }
    throw new req.errors('unavailable', `${provider} unreachable for ${req.method} ${pathOf(req.url)}: ${describeError(err)}`, {
      reason: 'network',
      cause: err,
    });
  } finally {
    clearTimeout(timer);
  }
}

/** `fetch failed (ECONNREFUSED)` rather than undici's bare `fetch failed`. */
export function describeError(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  const detail = e?.cause?.code ?? e?.cause?.message;
  return `${e?.message ?? String(err)}${detail ? ` (${detail})` : ''}`;
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/**
 * Error code and message a provider put in its error body: `{ error, message }`, OAuth's `error_description`,
 * or an RFC 7807 problem (`{ type, title, detail }`, the Bacen API Pix's), whose code is the last segment of `type`.
 */
export function providerErrorInfo(body: unknown): { code?: string; message?: string } {
  if (!body || typeof body !== 'object') return typeof body === 'string' ? { message: body.slice(0, 200) } : {};
  const b = body as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const problemType = str(b.type)?.replace(/\/+$/, '').split('/').pop();
  const code = str(b.error) ?? str(b.code) ?? problemType;
  const message = str(b.message) ?? str(b.error_description) ?? str(b.detail) ?? str(b.title);
  return { code, message };
}

/** Maps a non-2xx answer to the integration's error: 429 and 5xx are `unavailable`, other 4xx `refused`. */
export function errorForStatus(errors: IntegrationErrorClass, operation: string, res: ProviderResponse): IntegrationError {
  const { code, message } = providerErrorInfo(res.body);
  const text = `${errors.provider} ${operation} failed with ${res.status}${message ? `: ${message}` : ''}`;
  const status = res.status;
  if (status === 429) return new errors('unavailable', text, { reason: 'rate_limited', status, code });
  if (status >= 500) return new errors('unavailable', text, { reason: 'server_error', status, code });
  return new errors('refused', text, { status, code });
}

export function badResponse(errors: IntegrationErrorClass, operation: string, res: ProviderResponse, what: string): IntegrationError {
  return new errors('unavailable', `${errors.provider} ${operation}: unexpected answer (${what})`, { reason: 'bad_response', status: res.status });
}

export const isOk = (status: number) => status >= 200 && status < 300;

/** Joins a base URL (which may carry a path prefix) and a path. */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
}

interface Injectable {
  inject(opts: {
    method: string;
    url: string;
    headers: Record<string, string>;
    payload?: string;
  }): Promise<{ statusCode: number; headers: Record<string, string | string[] | number | undefined>; body: string }>;
}

/**
 * A fetch that hands the request to a Fastify instance through `inject()` instead of a socket:
 * the in-process simulators are reached with the real HTTP protocol (methods, headers, status
 * codes, JSON) without listening on a port. The origin of the URL is ignored.
 */
export function injectFetch(target: Injectable): FetchLike {
  return async (input, init = {}) => {
    const url = new URL(input);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const pending = target.inject({
      method: (init.method ?? 'GET').toUpperCase(),
      url: url.pathname + url.search,
      headers,
      payload: typeof init.body === 'string' ? init.body : undefined,
    });
    const res = init.signal ? await raceAbort(pending, init.signal) : await pending;
    const out = new Headers();
    for (const [key, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) out.append(key, String(v));
    }
    const nullBody = [101, 204, 205, 304].includes(res.statusCode);
    return new Response(nullBody ? null : res.body, { status: res.statusCode, headers: out });
  };
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
