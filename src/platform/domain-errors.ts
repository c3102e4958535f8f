/**
 * What a service may throw. These errors say what went wrong in the business's terms and never carry an
 * HTTP status: the central error handler (`platform/http.ts`, `domainErrorResponse`) maps each class to
 * its status once, and turns the field paths of `Invalid` into request paths (`items.0.quantity` ->
 * `body.items.0.quantity`). Guards and other platform HTTP code may still throw `HttpError`.
 */

/** A part of the request a field lives in. `Invalid` defaults to the route's body (else its query string, else its path). */
export type RequestPart = 'body' | 'querystring' | 'params' | 'headers';

/** A field of the input (a dotted path such as `items.0.quantity`) and what is wrong with it. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** A detail that is not a request path: a record id, a count, an allowed value (rendered as given). */
export interface ErrorNote {
  field: string;
  message: string;
}

export abstract class DomainError extends Error {
  /** Machine-readable reason, rendered as the body's `code`. */
  abstract readonly code: string;
}

/** The record does not exist, or belongs to another tenant (the two are never told apart). */
export class NotFound extends DomainError {
  readonly code = 'not_found';
  constructor(
    readonly what = 'Resource',
    message = `${what} not found`,
  ) {
    super(message);
  }
}

/** The request is valid but clashes with the current state: a taken number, a forbidden transition, a closed order. */
export class Conflict extends DomainError {
  constructor(
    message: string,
    readonly code = 'conflict',
    readonly notes?: ErrorNote[],
  ) {
    super(message);
  }
}

interface InvalidOptions {
  /** Default `validation`. */
  code?: string;
  /** The message to answer instead of the one built from the problems. */
  summary?: string;
  /** The part of the request the fields are in; default the route's body (else its query string, else its path). */
  in?: RequestPart;
}

/**
 * One or more fields of the input break a rule the schema cannot express. `field` is a path in the
 * input (`items.0.menuItem`), never a request path: the error handler adds the part (`body.items.0.menuItem`).
 * `new Invalid(field, message)` answers `path: message`; `new Invalid([problems])` lists every problem
 * found at once as schema validation does (`path message; path message`).
 */
export class Invalid extends DomainError {
  readonly code: string;
  readonly problems: FieldProblem[];
  readonly in?: RequestPart;
  readonly summary?: string;
  /** Several problems listed like schema validation errors, rather than one `path: message`. */
  readonly listed: boolean;

  constructor(field: string, message: string, opts?: InvalidOptions);
  constructor(problems: FieldProblem[], opts?: InvalidOptions);
  constructor(fieldOrProblems: string | FieldProblem[], messageOrOpts?: string | InvalidOptions, maybeOpts?: InvalidOptions) {
    const listed = Array.isArray(fieldOrProblems);
    const problems = listed ? fieldOrProblems : [{ field: fieldOrProblems, message: String(messageOrOpts) }];
    const opts = (listed ? messageOrOpts : maybeOpts) as InvalidOptions | undefined;
    super(opts?.summary ?? (listed ? problems.map((p) => `${p.field} ${p.message}`).join('; ') : `${problems[0].field}: ${problems[0].message}`));
    this.problems = problems;
    this.listed = listed;
    this.code = opts?.code ?? 'validation';
    this.summary = opts?.summary;
    this.in = opts?.in;
  }
}

/** The request as a whole cannot be acted on (no single field to blame): a zero total, an unreadable body, a spent link. */
export class InvalidRequest extends DomainError {
  constructor(
    message: string,
    readonly code = 'bad_request',
  ) {
    super(message);
  }
}

/** Who is asking is not known: bad credentials, a revoked session, a bad signature. */
export class Unauthenticated extends DomainError {
  constructor(
    message = 'Authentication required',
    readonly code = 'unauthorized',
  ) {
    super(message);
  }
}

/** Who is asking is known but may not do this. */
export class Forbidden extends DomainError {
  constructor(
    message = 'You do not have access to this resource',
    readonly code = 'forbidden',
  ) {
    super(message);
  }
}

/** Well-formed, but refused by a rule outside the request's shape: a provider refused it, a device is not the account's. */
export class Rejected extends DomainError {
  constructor(
    message: string,
    readonly code = 'unprocessable',
  ) {
    super(message);
  }
}

/** A payment was declined; `field` names the input the decline is about (e.g. `cardToken`), `reason` the provider's words. */
export class Declined extends DomainError {
  constructor(
    message: string,
    readonly code = 'payment_declined',
    readonly field?: string,
    readonly reason?: string,
  ) {
    super(message);
  }
}

/** Something the service depends on (a payment provider) cannot be reached now; the client may retry. */
export class Unavailable extends DomainError {
  constructor(
    message: string,
    readonly code = 'unavailable',
  ) {
    super(message);
  }
}

/** PostgreSQL unique violation on the named constraint (works for pg and PGlite errors): a service turns it into a `Conflict`. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string; cause?: unknown };
  if (e && e.code === '23505') return constraint ? e.constraint === constraint : true;
  return e?.cause ? isUniqueViolation(e.cause, constraint) : false;
}
