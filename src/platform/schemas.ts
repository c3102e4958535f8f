import { Type, type SchemaOptions, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { ID_PATTERN } from '../db/ids.js';

/**
 * Shared request/response schema pieces. Every module takes these from here and defines none of its own:
 * `Id` (and `ID_PATTERN`, whose one definition sits beside the id generator in `db/ids.ts`), `Nullable`,
 * `StringEnum`, `Body`, dates, `withErrors`.
 */
export { ID_PATTERN };
/** A record id: 24 lowercase hex characters (a malformed one in a path or body is a 400, never a database error). */
export const Id = Type.String({ pattern: ID_PATTERN, description: '24 hex characters' });

/** `T` or `null` (`/openapi.json` shows `nullable: true`; the type is `Static<T> | null`). */
export const Nullable = <T extends TSchema>(schema: T, options: SchemaOptions = {}) => Type.Union([schema, Type.Null()], options);
export const Slug = Type.String({ pattern: '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$', minLength: 1, maxLength: 64 });
export const Timestamp = Type.String({ format: 'date-time' });

/**
 * The platform's date range: every date and date-time input (query, body, params) lies within it, so
 * a far date is a 400 instead of an overflow in the database. The validator (platform/validation.ts)
 * gives the `date` and `date-time` formats this range, so any schema using them gets it.
 */
export const DATE_MIN = '2000-01-01';
export const DATE_MAX = '2099-12-31';
/** A calendar date input, YYYY-MM-DD: real (no 2026-02-30) and within the platform's range. */
export const CalendarDate = (description?: string) =>
  Type.String({ format: 'date', description: `YYYY-MM-DD, ${DATE_MIN} to ${DATE_MAX}${description ? '; ' + description : ''}` });
/** A date-time input: RFC 3339 with a time zone, its date within the platform's range. */
export const DateTimeInput = (description?: string) =>
  Type.String({ format: 'date-time', description: `RFC 3339 with time zone, ${DATE_MIN} to ${DATE_MAX}${description ? '; ' + description : ''}` });
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

export type ErrorBody = Static<typeof ErrorResponse>;
/** A reference to the shared error body, typed as it, so handlers' answers are checked against their response schemas. */
export const ErrorRef = (): TUnsafe<ErrorBody> => Type.Unsafe<ErrorBody>(Type.Ref('Error'));

type DefaultErrorCode = 400 | 401 | 403 | 404;
/** Responses every guarded route can give, merged into a route's own. */
export function withErrors<T extends Record<number, TSchema>, C extends number = DefaultErrorCode>(
  responses: T,
  codes: readonly C[] = [400, 401, 403, 404] as readonly DefaultErrorCode[] as readonly C[],
): { [K in C | keyof T]: K extends keyof T ? T[K] : TUnsafe<ErrorBody> } {
  const errors: Record<number, TSchema> = {};
  for (const c of codes) errors[c] = ErrorRef();
  return { ...errors, ...responses } as { [K in C | keyof T]: K extends keyof T ? T[K] : TUnsafe<ErrorBody> };
}

/** Strict object for request bodies: an unknown field is a 400 naming it (`body.<name> is not a known field`). */
export const Body = <T extends Parameters<typeof Type.Object>[0]>(props: T) =>
  Type.Object(props, { additionalProperties: false });

/** A closed string enumeration (renders as `enum` in OpenAPI, keeps the literal type). */
export const StringEnum = <T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** An empty response (204, 202): documented as `null`, sent as no body at all (`reply.code(204).send()`). */
export const NoContent = Type.Unsafe<undefined>(Type.Null({ description: 'no content' }));

/** The optional `Idempotency-Key` header of a retry-safe write (src/platform/idempotency.ts). */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ description: 'retry-safe key: the same key and body within 24 h return the first answer' })),
});
