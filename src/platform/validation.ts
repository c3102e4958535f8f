import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';
import type { ErrorDetail } from './errors.js';
import { DATE_MAX, DATE_MIN } from './schemas.js';

/** YYYY-MM-DD that exists in the calendar (2026-02-30 does not) and lies in the platform's date range. */
export function isDateInRange(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  return day <= days && value >= DATE_MIN && value <= DATE_MAX;
}

const rfc3339DateTime = addFormats.default.get('date-time') as { validate: (s: string) => boolean; compare: (a: string, b: string) => number | undefined };
const rfc3339Date = addFormats.default.get('date') as { compare: (a: string, b: string) => number | undefined };

function makeAjv(coerce: boolean) {
  const ajv = new Ajv.default({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    // Query strings, params and headers: a parameter the schema does not know is ignored (cache-busters).
    // Bodies: an unknown field is a 400 naming it (additionalProperties: false on every body object).
    removeAdditional: coerce,
    allErrors: false,
    // Errors carry their schema and data, so a failed union can name the field no branch knows.
    verbose: true,
    strict: false,
  });
  addFormats.default(ajv);
  // Every `date` and `date-time` input is a real date within the platform's range (docs/decisions.md).
  ajv.addFormat('date', { type: 'string', validate: isDateInRange, compare: rfc3339Date.compare });
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (s: string) => rfc3339DateTime.validate(s) && isDateInRange(s.slice(0, 10)),
    compare: rfc3339DateTime.compare,
  });
  return ajv;
}

const NUL = '\u0000';
/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

// eslint-disable-next-line no-control-regex -- finding NUL is the point
const SUSPECT = /[\u0000\ud800-\udfff]/;

function textProblem(s: string): string | null {
  if (!SUSPECT.test(s)) return null;
  if (s.includes(NUL)) return 'must not contain NUL characters (\\u0000)';
  if (LONE_SURROGATE.test(s)) return 'must not contain unpaired UTF-16 surrogates';
  return null;
}

const pointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
/** A key named in an error must itself be printable. */
const printable = (key: string) => key.replaceAll(NUL, '\\u0000').replace(/[\ud800-\udfff]/g, '\ufffd');

/**
 * The first string (value or object key) anywhere in `data` that PostgreSQL cannot store or that is
 * not valid Unicode text, as an ajv-like error. Iterative, so deeply nested JSON cannot overflow the stack.
 */
export function findUnsafeText(data: unknown): ErrorObject | null {
  const stack: [unknown, string][] = [[data, '']];
  while (stack.length) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return { instancePath: path, schemaPath: '#', keyword: 'text', params: {}, message: problem };
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${path}/${i}`]);
    } else if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i];
        const problem = textProblem(key);
        if (problem) return { instancePath: `${path}/${pointer(printable(key))}`, schemaPath: '#', keyword: 'text', params: {}, message: `name ${problem}` };
        stack.push([(value as Record<string, unknown>)[key], `${path}/${pointer(key)}`]);
      }
    }
  }
  return null;
}

type Schema = Record<string, unknown>;
const isClosedObject = (s: unknown): s is Schema & { properties?: Schema } =>
  typeof s === 'object' && s !== null && (s as Schema).type === 'object' && (s as Schema).additionalProperties === false;

/**
 * ajv reports a failed `anyOf` with the errors of every branch. Keep what helps the caller: a field
 * that no branch knows; else the branch that matched the kind of value sent (an email that fails its
 * format, not "must be null"); else one "must be X or Y".
 */
export function simplifyUnionErrors(errors: ErrorObject[]): ErrorObject[] {
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  if (!unions.length) return errors;
  const union = unions.reduce((a, b) => (b.schemaPath.length < a.schemaPath.length ? b : a));
  const prefix = union.schemaPath + '/';
  const inside = errors.filter((e) => e.schemaPath.startsWith(prefix));
  const outside = errors.filter((e) => e !== union && !e.schemaPath.startsWith(prefix));
  if (!inside.length) return errors;

  const data = union.data;
  const branches = Array.isArray(union.schema) ? (union.schema as unknown[]) : [];
  if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
    const objects = branches.filter((b) => typeof b === 'object' && b !== null && (b as Schema).type === 'object');
    if (objects.length && objects.every(isClosedObject)) {
      const unknown = Object.keys(data).find((k) => objects.every((b) => !Object.hasOwn(b.properties ?? {}, k)));
      if (unknown !== undefined) {
        return [
          ...outside,
          { ...union, keyword: 'additionalProperties', params: { additionalProperty: unknown }, message: 'must NOT have additional properties' },
        ];
      }
    }
  }

  const byBranch = new Map<string, ErrorObject[]>();
  for (const e of inside) {
    const branch = e.schemaPath.slice(prefix.length).split('/')[0];
    byBranch.set(branch, [...(byBranch.get(branch) ?? []), e]);
  }
  const wrongKind = (errs: ErrorObject[]) => errs.every((e) => e.keyword === 'type' && e.instancePath === union.instancePath);
  const best = [...byBranch.values()].find((errs) => !wrongKind(errs));
  if (best) return [...outside, ...simplifyUnionErrors(best)];
  const types = [...new Set(inside.map((e) => String((e.params as { type?: unknown }).type)))];
  return [...outside, { ...union, keyword: 'type', params: { type: types.join(',') }, message: `must be ${types.join(' or ')}` }];
}

type FastifyValidate = ((data: unknown, dataCxt?: unknown) => boolean) & { errors?: ErrorObject[] | null; schemaEnv?: unknown };

/**
 * Wraps a compiled validator: every string and key of the part is checked for NUL characters and lone
 * surrogates first (PostgreSQL cannot store NUL in text; a lone surrogate is not text), then the schema;
 * union errors are simplified.
 */
function guarded(validate: ValidateFunction): FastifyValidate {
  const wrapped: FastifyValidate = (data, dataCxt) => {
    const unsafe = findUnsafeText(data);
    if (unsafe) {
      wrapped.errors = [unsafe];
      return false;
    }
    const ok = validate(data, dataCxt as never);
    wrapped.errors = ok ? null : simplifyUnionErrors(validate.errors ?? []);
    return ok;
  };
  // Fastify hands ajv validators their parent so a coerced root value can be replaced.
  wrapped.schemaEnv = validate.schemaEnv;
  return wrapped;
}

/**
 * Bodies are validated strictly (a string is never taken for a number, an unknown field is a 400);
 * query strings, params and headers are coerced since they arrive as text, and their unknown
 * parameters are ignored. Every string in body, query string and params is checked for NUL and lone surrogates.
 */
export function installValidators(app: FastifyInstance) {
  const bodyAjv = makeAjv(false);
  const textAjv = makeAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart === 'body') return guarded(bodyAjv.compile(schema));
    const validate = textAjv.compile(schema);
    return httpPart === 'headers' ? validate : guarded(validate);
  });
}

const FORMAT_MESSAGES: Record<string, string> = {
  date: `must be a real date from ${DATE_MIN} to ${DATE_MAX} (YYYY-MM-DD)`,
  'date-time': `must be a date-time with a time zone (RFC 3339) from ${DATE_MIN} to ${DATE_MAX}`,
};

/** Turns ajv errors into `{ field, message }` naming the field with its location. */
export function validationDetails(
  errors: (FastifySchemaValidationError | ErrorObject)[],
  context: string | undefined,
): ErrorDetail[] {
  return errors.map((e) => {
    const params = (e.params ?? {}) as Record<string, unknown>;
    let path = (e as ErrorObject).instancePath ?? '';
    if (typeof params.missingProperty === 'string') path += '/' + params.missingProperty;
    if (typeof params.additionalProperty === 'string') path += '/' + printable(params.additionalProperty);
    const field = [context, ...path.split('/').filter(Boolean)].filter(Boolean).join('.');
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'additionalProperties') message = 'is not a known field';
    if (e.keyword === 'format' && typeof params.format === 'string' && FORMAT_MESSAGES[params.format]) message = FORMAT_MESSAGES[params.format];
    if (Array.isArray(params.allowedValues)) message += ': ' + params.allowedValues.join(', ');
    return { field: field || context || 'request', message };
  });
}
