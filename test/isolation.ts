import { expect } from 'vitest';
import type { App } from '../src/app.js';

export interface IsolationRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path with `:slug` where the tenant slug goes, e.g. `/t/:slug/users/<id of A's user>`. */
  path: string;
  payload?: unknown;
}

/**
 * Tenant isolation check every module reuses. Tenant B's admin aims each request at tenant A's
 * records, once through B's own slug (must look exactly like a missing record: 404) and once
 * through A's slug (not a member: 403). `snapshot` reads A's data before and after: it must not change.
 */
export async function expectTenantIsolation(opts: {
  app: App;
  ownerSlug: string;
  outsider: { slug: string; headers: Record<string, string> };
  requests: IsolationRequest[];
  snapshot: () => Promise<unknown>;
}) {
  const before = await opts.snapshot();
  for (const r of opts.requests) {
    const viaOwnSlug = await opts.app.inject({
      method: r.method,
      url: r.path.replace(':slug', opts.outsider.slug),
      payload: r.payload as never,
      headers: opts.outsider.headers,
    });
    expect(viaOwnSlug.statusCode, `${r.method} ${r.path} through the outsider's tenant`).toBe(404);
    const viaOwnerSlug = await opts.app.inject({
      method: r.method,
      url: r.path.replace(':slug', opts.ownerSlug),
      payload: r.payload as never,
      headers: opts.outsider.headers,
    });
    expect(viaOwnerSlug.statusCode, `${r.method} ${r.path} through the owner's tenant`).toBe(403);
  }
  expect(await opts.snapshot()).toEqual(before);
}
