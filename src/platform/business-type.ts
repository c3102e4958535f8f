import type { FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';
import type { TenantRef } from './tenancy.js';

export type BusinessType = TenantRef['businessType'];

/**
 * A route-level `onRequest` hook for features some business types do not have
 * (tables, reservations and the kitchen display are restaurant-only). It runs after the guard chain,
 * so credentials are checked first; the tenant is then answered 404, as if the route did not exist.
 */
export function onlyFor(allowed: readonly BusinessType[], feature: string) {
  return async function requireBusinessType(req: FastifyRequest) {
    const type = req.tenant?.businessType ?? 'restaurant';
    if (!allowed.includes(type)) {
      throw new HttpError(404, `${feature} are not available for the business type ${type}`, 'feature_unavailable');
    }
  };
}
