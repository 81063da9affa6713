import type { OpenAPIV3_1 } from 'openapi-types';
import { errorFromDiagnostics } from '../errors.js';
import { failure, ok, type Result } from '../result.js';
import { atPointer, followRefs } from '../spec/loadDocument.js';
import { type Operation, perOperation } from '../spec/operations.js';
import { diagnosticsFromAjv } from '../validate/ajvDiagnostics.js';
import type { Diagnostic } from '../validate/diagnostic.js';
import type { SchemaCheck } from '../validate/schemas.js';
import { adminDocument, adminSchemas, documentIds } from './adminDocument.js';

/** The path and query parameters of one call, coerced to the types their schemas declare. */
export interface CallParameters {
  readonly path: Readonly<Record<string, unknown>>;
  readonly query: Readonly<Record<string, unknown>>;
}

/**
 * Checks the path and query parameters of a call against the operation's parameter schemas. Diagnostics point at
 * `/path/<name>` and `/query/<name>`; an undeclared query parameter is an unknown field.
 */
export function checkParameters(
  operation: Operation,
  pathParams: Readonly<Record<string, string>>,
  search: URLSearchParams,
): Result<CallParameters> {
  const { types, check } = compiled(operation);
  const path = Object.fromEntries(
    Object.entries(pathParams).map(([name, text]) => [name, coerce(text, types.get(`path:${name}`))]),
  );
  // Object.fromEntries makes every name an own property, `__proto__` included (reported as unknown).
  const query = Object.fromEntries(
    [...new Set(search.keys())].map((name) => {
      const values = search.getAll(name).map((text) => coerce(text, types.get(`query:${name}`)));
      return [name, values.length === 1 ? values[0] : values];
    }),
  );
  const value = { path, query };
  const errors = check(value);
  if (errors.length === 0) return ok(value);
  const lead = `the request does not match ${operation.operationId}: `;
  const diagnostics = diagnosticsFromAjv(errors, '').map((found) => asWritten(found, value, types));
  return failure(errorFromDiagnostics('VALIDATION_FAILED', diagnostics, lead));
}

/**
 * The problems of query values given in process (the controls' `requests(query)`), one message each, by the same
 * parameter schemas as the HTTP call's query text: what `GET /__admin/requests?limit=0` is refused for,
 * `requests({ limit: 0 })` is refused for.
 */
export const queryValueProblems = (
  operation: Operation,
  query: Readonly<Record<string, unknown>>,
): string[] =>
  diagnosticsFromAjv(compiled(operation).check({ path: {}, query }), '').map((found) => found.message);

/**
 * A wrong type said in the terms of a URL: every parameter arrives as text, so "must be a boolean, not a string"
 * becomes what to write instead (`invalid=yes` must be true or false).
 */
function asWritten(found: Diagnostic, value: CallParameters, types: ParameterCheck['types']): Diagnostic {
  const [, where, name] = found.path.split('/');
  if (found.code !== 'WRONG_TYPE' || (where !== 'path' && where !== 'query') || name === undefined)
    return found;
  const sent = value[where][name];
  if (Array.isArray(sent))
    return { ...found, message: `${where} parameter ${name} is given ${sent.length} times; give it once` };
  const type = types.get(`${where}:${name}`);
  const wanted = { boolean: 'true or false', integer: `a whole number (e.g. ${name}=10)` }[String(type)];
  if (typeof sent !== 'string' || wanted === undefined) return found;
  return { ...found, message: `${where} parameter ${name}=${sent} must be ${wanted}` };
}

interface ParameterCheck {
  /** `path:name` or `query:name` to the JSON type its schema declares. */
  readonly types: ReadonlyMap<string, unknown>;
  readonly check: SchemaCheck;
}

/**
 * The operation's parameter check, made once: an object schema `{ path: {...}, query: {...} }` whose properties
 * `$ref` the declared schemas, registered under its own id next to the documents.
 */
const compiled = perOperation((operation): ParameterCheck => {
  const group = (where: 'path' | 'query') => {
    const declared = operation.parameters.filter((p) => p.in === where);
    return {
      type: 'object',
      additionalProperties: false,
      required: declared.filter((p) => p.required).map((p) => p.name),
      properties: Object.fromEntries(
        declared.map((p) => [p.name, { $ref: `${documentIds.admin}#${p.schema}` }]),
      ),
    };
  };
  const id = `${documentIds.admin}-parameters-${operation.operationId}`;
  const schema = { type: 'object', properties: { path: group('path'), query: group('query') } };
  // The registry takes whole documents; a plain JSON schema is registered the same way, by its own id.
  adminSchemas().register(id, schema as unknown as OpenAPIV3_1.Document);
  return {
    types: new Map(operation.parameters.map((p) => [`${p.in}:${p.name}`, declaredType(p.schema)])),
    check: adminSchemas().check(id, ''),
  };
});

/** The `type` a schema of the admin document declares, its `$ref`s followed (into the service document too). */
const declaredType = (pointer: string): unknown =>
  followRefs(atPointer(adminDocument(), pointer), documentIds.admin)?.type;

/** A query or path text as the type its schema declares, when it reads as one; else the text itself. */
function coerce(text: string, type: unknown): unknown {
  const types = [type].flat();
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(text))
    return Number(text);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}
