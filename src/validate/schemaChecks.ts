import { serviceDocument } from '../spec/loadDocument.js';
import { createRouter, type Operation, operations, type Route } from '../spec/operations.js';
import { diagnosticsFromAjv } from './ajvDiagnostics.js';
import type { Diagnostic } from './diagnostic.js';
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

const none: readonly Diagnostic[] = [];

/**
 * The diagnostics of a request body (an object) against its operation's schema, with the likely mistake first when
 * another method of the same path would take the body as it is.
 */
export function checkRequestSchema(operation: Operation, body: unknown): readonly Diagnostic[] {
  if (operation.requestSchema === undefined) return none;
  const errors = requestCheck(operation, operation.requestSchema)(body);
  if (errors.length === 0) return none;
  const diagnostics = explainAnswerFields(diagnosticsFromAjv(errors, '/body'));
  const fitting = operationsFitting(
    operation,
    (other) => requestCheck(other, other.requestSchema as string)(body).length === 0,
  );
  return fitting.length === 0 ? diagnostics : [wrongMethod(operation, fitting), ...diagnostics];
}

/**
 * Checks a response body against the schema the document gives for that operation and status; the diagnostics
 * speak to the service that answered (what it sent, what it must send).
 */
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
        message: `the service answered status ${status}, which ${operation.operationId} does not document; the service must answer one of ${known}`,
      },
    ];
  }
  return diagnosticsFromAjv(schemas().check(documentId, schema, { lenient })(body), '/body', 'answer');
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
