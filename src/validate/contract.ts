import { serviceDocument } from '../spec/document.js';
import { createRouter, type Operation, operations, type Route } from '../spec/operations.js';
import { diagnosticsFromAjv } from './ajvDiagnostics.js';
import { type Diagnostic, invalid, type Validation, valid } from './diagnostic.js';
import { inspectJsonValue } from './jsonValue.js';
import { explainAnswerFields, operationsFitting, wrongMethod } from './mistakes.js';
import { precompiledChecks } from './precompiled.js';
import { type SchemaCheck, SchemaRegistry } from './schemas.js';

/** The service document's id in the registry: its file name, so admin.yaml's relative `$ref`s resolve to it. */
export const documentId = 'user-group-service.yaml';
let registry: SchemaRegistry | undefined;
/** The checks compiled at build time for this very document, by schema pointer (none when running the sources). */
let precompiled: ReturnType<typeof precompiledChecks>;
/** The one schema registry of the process; the admin API registers openapi/admin.yaml into it when first used. */
export const schemas = (): SchemaRegistry => {
  if (registry === undefined) {
    registry = new SchemaRegistry();
    const document = serviceDocument();
    precompiled = precompiledChecks(document);
    registry.register(documentId, document, precompiled);
  }
  return registry;
};

let router: ((method: string, path: string) => Route) | undefined;
/** Finds the operation for a method and path of the User Group Service. */
export const route = (method: string, path: string): Route => {
  router ??= createRouter(operations());
  return router(method, path);
};

const requestChecks = new WeakMap<Operation, SchemaCheck>();
const requestCheck = (operation: Operation, pointer: string): SchemaCheck => {
  let check = requestChecks.get(operation);
  if (check === undefined) {
    check = schemas().check(documentId, pointer);
    requestChecks.set(operation, check);
  }
  return check;
};

/**
 * Checks a parsed request body against the operation's schema (and the JSON rules schemas cannot express).
 * `clean` says the JSON text already showed the value passes `inspectJsonValue` (see `ParsedJson`).
 */
export function checkRequestBody(operation: Operation, body: unknown, clean = false): Validation<unknown> {
  if (!clean) {
    const structural = inspectJsonValue(body);
    if (structural.length > 0) return invalid(structural);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    const kind = body === null ? 'null' : Array.isArray(body) ? 'an array' : `a ${typeof body}`;
    return invalid([
      { code: 'BODY_NOT_OBJECT', path: '/body', message: `body must be a JSON object, not ${kind}` },
    ]);
  }
  if (operation.requestSchema === undefined) return valid(body);
  const errors = requestCheck(operation, operation.requestSchema)(body);
  if (errors.length === 0) return valid(body);
  const diagnostics = explainAnswerFields(diagnosticsFromAjv(errors, '/body'));
  // A body that another method of the path would take: the method is the likely mistake, so it leads.
  const fitting = operationsFitting(
    operation,
    (other) => requestCheck(other, other.requestSchema as string)(body).length === 0,
  );
  return invalid(fitting.length === 0 ? diagnostics : [wrongMethod(operation, fitting), ...diagnostics]);
}

/** Checks a response body against the schema the document gives for that operation and status. */
export function checkResponseBody(
  operation: Operation,
  status: number,
  body: unknown,
  lenient: boolean,
): Diagnostic[] {
  const schema = operation.responseSchemas.get(String(status)) ?? operation.responseSchemas.get('default');
  if (schema === undefined) {
    const known = [...operation.responseSchemas.keys()].join(', ');
    return [
      {
        code: 'UNDOCUMENTED_STATUS',
        path: '/status',
        message: `${operation.operationId} does not document status ${status}; it documents ${known}`,
      },
    ];
  }
  return diagnosticsFromAjv(schemas().check(documentId, schema, { lenient })(body), '/body');
}

/**
 * Compiles the request schemas now rather than on the first request (servers call this before listening); says
 * whether they all came precompiled from the build (decision 9) or some had to be compiled now.
 */
export function warmUp(): 'precompiled' | 'compiled' {
  let compiled = false;
  for (const operation of operations()) {
    if (operation.requestSchema === undefined) continue;
    requestCheck(operation, operation.requestSchema);
    if (precompiled?.has(operation.requestSchema) !== true) compiled = true;
  }
  return compiled ? 'compiled' : 'precompiled';
}
