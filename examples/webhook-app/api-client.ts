/**
 * The App's side of the public developer API (`/public/v1`): server to server, with the installation's
 * access token (`Authorization: Bearer <token>`), which the tenant admin got once at install time.
 */

export class PublicApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`public API answered ${status}`);
  }
}

export interface PublicApiClient {
  /** `GET /public/v1/orders` (needs `orders.read`): the tenant's orders, newest first. */
  orders(query?: { status?: string; from?: string; to?: string }): Promise<Array<{ _id: string; orderNumber: string; status: string }>>;
  /** `GET /public/v1/menu/items` (needs `menu.read`). */
  menuItems(): Promise<Array<{ _id: string; name: string; price: number }>>;
  /** The rate-limit headers of the last answer. */
  readonly rateLimit: { limit: number | null; remaining: number | null; reset: number | null };
}

export function createPublicApiClient(opts: { baseUrl: string; token: string; fetch?: typeof fetch }): PublicApiClient {
  const doFetch = opts.fetch ?? fetch;
  const rateLimit: PublicApiClient['rateLimit'] = { limit: null, remaining: null, reset: null };
  const num = (v: string | null) => (v === null ? null : Number(v));

  async function get<T>(path: string, query: Record<string, string | undefined> = {}): Promise<T> {
    const url = new URL(path, opts.baseUrl);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
    const res = await doFetch(url, { headers: { authorization: `Bearer ${opts.token}`, accept: 'application/json' } });
    rateLimit.limit = num(res.headers.get('x-ratelimit-limit'));
    rateLimit.remaining = num(res.headers.get('x-ratelimit-remaining'));
    rateLimit.reset = num(res.headers.get('x-ratelimit-reset'));
    const body: unknown = await res.json().catch(() => null);
    if (!res.ok) throw new PublicApiError(res.status, body);
    return body as T;
  }

  return {
    orders: (query = {}) => get('/public/v1/orders', query),
    menuItems: () => get('/public/v1/menu/items'),
    rateLimit,
  };
}
