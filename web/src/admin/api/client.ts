/**
 * The panel's API client: openapi-fetch typed by `schema.d.ts`, which `npm run gen:api` generates from the
 * service's /openapi.json (never edited by hand). Every request carries the session's access token; a 401
 * renews it once and retries. Answers other than 2xx become an ApiError (status, code, field errors), so a
 * page handles failures in one place.
 *
 *   const orders = await call(api.GET('/t/{slug}/orders', { params: { path: { slug } } }));
 */
import createClient from 'openapi-fetch';
import { ApiError, type FieldError } from '../../shared/api.js';
import { session } from '../session.js';
import type { paths } from './schema.js';

async function authorizedFetch(input: Request): Promise<Response> {
  const retry = input.clone();
  const send = async (req: Request, token: string | null) => {
    if (token) req.headers.set('authorization', `Bearer ${token}`);
    return fetch(req);
  };
  const token = session.loggedIn ? await session.accessToken().catch(() => null) : null;
  const res = await send(input, token);
  if (res.status !== 401 || !token) return res;
  const renewed = await session.renew().catch(() => null);
  return renewed ? send(retry, renewed.accessToken) : res;
}

export const api = createClient<paths>({ baseUrl: '', fetch: authorizedFetch });

interface ErrorBody {
  code?: string;
  error?: string;
  message?: string;
  details?: FieldError[];
}

/** The data of an openapi-fetch answer, or an ApiError for anything but 2xx. */
export async function call<T>(promise: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await promise;
  } catch (err) {
    throw new ApiError(0, 'network', err instanceof Error ? err.message : String(err));
  }
  if (result.response.ok) return result.data as T;
  const body = (result.error ?? {}) as ErrorBody;
  throw new ApiError(result.response.status, body.code ?? body.error ?? 'http_error', body.message ?? result.response.statusText, body.details ?? []);
}
