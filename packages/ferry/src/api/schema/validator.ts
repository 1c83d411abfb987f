// Request bodies checked against JSON schemas (ajv), the same schemas the served API document is built from, so
// what is validated and what is documented cannot drift. A refusal is a 400 naming the field, as the hand-written
// checks of src/api/http/validate.ts answer.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { badRequest } from '../http/errors.ts';

/** A JSON schema in the subset OpenAPI 3.0 and JSON Schema share (no `const`, no `$schema`). */
export type JsonSchema = Record<string, unknown>;

const ajv = new Ajv({ allErrors: true, strict: false });

/** The field an error is about: `pagination.limit`, `publicKeys[3]` → `publicKeys`, or a missing property's name. */
function fieldOf(error: ErrorObject): string {
  const path = error.instancePath.split('/').filter((part) => part !== '' && !/^\d+$/.test(part));
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  if (error.keyword === 'required') path.push(String(params.missingProperty));
  if (error.keyword === 'additionalProperties') path.push(String(params.additionalProperty));
  return path.join('.');
}

/** The reference's texts: `undefined parameter: x` for a missing field, `invalid parameter: x` for anything else. */
export function describeErrors(errors: readonly ErrorObject[], oneOfHint?: string): string {
  // An error inside a field says more than the oneOf over the whole body that it made fail.
  const inField = errors.find((e) => e.instancePath !== '' && e.keyword !== 'oneOf');
  if (inField) return `invalid parameter: ${fieldOf(inField)}`;
  if (errors.some((e) => e.keyword === 'oneOf') && oneOfHint !== undefined) return oneOfHint;
  const own = errors.find((e) => e.keyword === 'required' || e.keyword === 'additionalProperties') ?? errors[0];
  if (own.instancePath === '' && own.keyword === 'type') return 'request body must be a JSON object';
  return own.keyword === 'required' ? `undefined parameter: ${fieldOf(own)}` : `invalid parameter: ${fieldOf(own)}`;
}

/** A body checker: returns the body typed as T, or throws a 400. `oneOfHint`: the text when no branch of a oneOf fits. */
export function bodyValidator<T>(schema: JsonSchema, oneOfHint?: string): (body: unknown) => T {
  const validate: ValidateFunction = ajv.compile(schema);
  return (body) => {
    if (body === undefined) throw badRequest('request body is missing');
    // Every body of this API is an object; saying so beats a list of what each oneOf branch wanted.
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('request body must be a JSON object');
    if (!validate(body)) throw badRequest(describeErrors(validate.errors ?? [], oneOfHint));
    return body as T;
  };
}
