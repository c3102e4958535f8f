import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import type { TenantDb } from '../db/scopes.js';
import { tenants } from '../db/schema/tenants.js';
import type { Plan } from './auth/permissions.js';

export interface TenantRef {
  id: string;
  slug: string;
  name: string;
  isActive: boolean;
  plan: Plan;
  businessType: 'restaurant' | 'mercado' | 'padaria';
  timezone: string;
  /** The tenant's database handle (its transactions see only its rows). */
  db: TenantDb;
}

/** How long another process may keep serving a tenant's old state (activation, plan). */
const TTL_MS = 5_000;

/**
 * Resolves `:slug` to a tenant once per few seconds per process. The platform's one read of the tenants
 * module's table (the guard chain, realtime and modules that need a tenant's plan or business type use it).
 * Writes in this process call `forget` so they are visible on the next request.
 */
export function tenantResolver(db: Db, bind: (tenantId: string) => TenantDb) {
  const cache = new Map<string, { ref: TenantRef | null; until: number }>();
  const idCache = new Map<string, { ref: TenantRef | null; until: number }>();
  const columns = {
    id: tenants.id,
    slug: tenants.slug,
    name: tenants.name,
    isActive: tenants.isActive,
    plan: tenants.plan,
    businessType: tenants.businessType,
    timezone: tenants.timezone,
  };
  return {
    async bySlug(slug: string): Promise<TenantRef | null> {
      const hit = cache.get(slug);
      const now = Date.now();
      if (hit && hit.until > now) return hit.ref;
      const [row] = await db.select(columns).from(tenants).where(eq(tenants.slug, slug));
      const ref = row ? { ...row, db: bind(row.id) } : null;
      if (cache.size > 10_000) cache.clear();
      cache.set(slug, { ref, until: now + TTL_MS });
      return ref;
    },
    /** A tenant by id, read now (not cached): for rare checks that must see a change at once, or callers with their own cache. */
    async byId(id: string): Promise<TenantRef | null> {
      const [row] = await db.select(columns).from(tenants).where(eq(tenants.id, id));
      return row ? { ...row, db: bind(row.id) } : null;
    },
    /** A tenant by id, cached like `bySlug` (the public API's guard, which finds the tenant of a token). */
    async byIdCached(id: string): Promise<TenantRef | null> {
      const hit = idCache.get(id);
      const now = Date.now();
      if (hit && hit.until > now) return hit.ref;
      const [row] = await db.select(columns).from(tenants).where(eq(tenants.id, id));
      const ref = row ? { ...row, db: bind(row.id) } : null;
      if (idCache.size > 10_000) idCache.clear();
      idCache.set(id, { ref, until: now + TTL_MS });
      return ref;
    },
    forget(slug?: string) {
      if (!slug) {
        cache.clear();
        idCache.clear();
        return;
      }
      cache.delete(slug);
      for (const [id, entry] of idCache) if (entry.ref?.slug === slug) idCache.delete(id);
    },
  };
}

export type TenantResolver = ReturnType<typeof tenantResolver>;
