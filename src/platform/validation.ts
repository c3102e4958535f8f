import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';
import type { ErrorDetail } from './errors.js';

function makeAjv(coerce: boolean) {
  const ajv = new Ajv.default({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: true,
    allErrors: false,
    strict: false,
  });
  addFormats.default(ajv);
  return ajv;
}

/**
 * Bodies are validated strictly (a string is never taken for a number);
 * query strings, params and headers are coerced since they arrive as text.
 */
export function installValidators(app: FastifyInstance) {
  const bodyAjv = makeAjv(false);
  const textAjv = makeAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? bodyAjv.compile(schema) : textAjv.compile(schema),
  );
}

/** Turns ajv errors into `{ field, message }` naming the field with its location. */
export function validationDetails(
  errors: (FastifySchemaValidationError | ErrorObject)[],
  context: string | undefined,
): ErrorDetail[] {
  return errors.map((e) => {
    const params = (e.params ?? {}) as Record<string, unknown>;
    let path = (e as ErrorObject).instancePath ?? '';
    if (typeof params.missingProperty === 'string') path += '/' + params.missingProperty;
    if (typeof params.additionalProperty === 'string') path += '/' + params.additionalProperty;
    const field = [context, ...path.split('/').filter(Boolean)].filter(Boolean).join('.');
    let message = e.message ?? 'is invalid';
    if (Array.isArray(params.allowedValues)) message += ': ' + params.allowedValues.join(', ');
    return { field: field || context || 'request', message };
  });
}
