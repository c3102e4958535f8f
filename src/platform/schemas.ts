import { Type, type TSchema } from '@sinclair/typebox';
import { ID_PATTERN } from '../db/ids.js';

/** Shared request/response schema pieces. */
export const Id = Type.String({ pattern: ID_PATTERN, description: '24 hex characters' });
export const Slug = Type.String({ pattern: '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$', minLength: 1, maxLength: 64 });
export const Timestamp = Type.String({ format: 'date-time' });
export const Email = Type.String({ format: 'email', maxLength: 254 });

export const TenantParams = Type.Object({ slug: Type.String({ maxLength: 64 }) });
export const TenantIdParams = Type.Object({ slug: Type.String({ maxLength: 64 }), id: Id });
export const IdParams = Type.Object({ id: Id });

export const ErrorResponse = Type.Object(
  {
    statusCode: Type.Integer(),
    error: Type.Optional(Type.String()),
    message: Type.String(),
    code: Type.Optional(Type.String()),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { $id: 'Error', description: 'Every error has this shape' },
);

/** Responses every guarded route can give, merged into a route's own. */
export function withErrors<T extends Record<number, TSchema>>(responses: T, codes: number[] = [400, 401, 403, 404]) {
  const errors: Record<number, TSchema> = {};
  for (const c of codes) errors[c] = Type.Ref('Error');
  return { ...errors, ...responses };
}

/** Strict object for request bodies: unknown fields are dropped by the validator, never written. */
export const Body = <T extends Parameters<typeof Type.Object>[0]>(props: T) =>
  Type.Object(props, { additionalProperties: false });

/** A closed string enumeration (renders as `enum` in OpenAPI, keeps the literal type). */
export const StringEnum = <T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** An empty response (204). */
export const NoContent = Type.Null({ description: 'no content' });
