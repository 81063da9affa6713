import { serviceDocument } from '../spec/loadDocument.js';
import { createRouter, type Operation, operations, perOperation, type Route } from '../spec/operations.js';
import { diagnosticsFromAjv } from './ajvDiagnostics.js';
import { type Diagnostic, diagnostic } from './diagnostic.js';
import { explainAnswerFields, explainWrapper, operationsFitting, wrongMethod } from './mistakes.js';
import { precompiledChecks } from './precompiled.js';
import { SchemaRegistry } from './schemas.js';

export const documentId = 'user-group-service.yaml';
let registry: SchemaRegistry | undefined;
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
export const route = (method: string, path: string): Route => {
  router ??= createRouter(operations());
  return router(method, path);
};

const requestCheck = perOperation((operation) =>
  schemas().check(documentId, operation.requestSchema as string),
);

const none: readonly Diagnostic[] = [];

/**
 * The diagnostics of a request body (an object) against its operation's schema, with the likely mistake first when
 * another method of the same path would take the body as it is.
 */
export function checkRequestSchema(operation: Operation, body: unknown): readonly Diagnostic[] {
  if (operation.requestSchema === undefined) return none;
  const errors = requestCheck(operation)(body);
  if (errors.length === 0) return none;
  const diagnostics = explainWrapper(
    operation,
    body,
    explainAnswerFields(diagnosticsFromAjv(errors, '/body')),
  );
  const fitting = operationsFitting(operation, (other) => requestCheck(other)(body).length === 0);
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
    return undocumented(
      `the service answered status ${status}, which ${operation.operationId} does not document; the service must answer one of ${known}`,
    );
  }
  return answerDiagnostics(schema, body, lenient);
}

/**
 * Checks the answer to a request that has no operation: a method the path does not take is answered 405, as every
 * operation of the path documents (their 405 schema); a path the document does not have, 404 with the error
 * envelope. Any other status is said plainly: no operation documents it, so the answer cannot be checked further.
 */
export function checkUnroutedAnswer(
  method: string,
  path: string,
  status: number,
  body: unknown,
  lenient: boolean,
): Diagnostic[] {
  const found = route(method, path);
  if (found.kind === 'operation') throw new Error('checkUnroutedAnswer takes a request without an operation');
  const ofPath = operations().find((o) => o.path === path);
  if (found.kind === 'method-not-allowed' && ofPath !== undefined) {
    if (status === 405) return checkResponseBody(ofPath, status, body, lenient);
    return undocumented(
      `the service answered status ${status} to ${method} ${path}, a method the document does not give this path (it gives ${found.allow.join(', ')}); the document's answer to it is 405 with the error envelope`,
    );
  }
  if (status === 404) return answerDiagnostics('/components/schemas/ErrorResponse', body, lenient);
  return [
    diagnostic(
      'NO_OPERATION',
      '/path',
      `the document has no operation at ${method} ${path}, so it documents no answer to check this one against; a path the service does not have is answered 404 with the error envelope, and the service answered ${status}`,
    ),
  ];
}

const undocumented = (message: string): Diagnostic[] => [
  diagnostic('UNDOCUMENTED_STATUS', '/status', message),
];

const answerDiagnostics = (schema: string, body: unknown, lenient: boolean): Diagnostic[] =>
  diagnosticsFromAjv(schemas().check(documentId, schema, { lenient })(body), '/body', 'answer');

/**
 * Compiles the request schemas now rather than on the first request (servers call this before listening); says
 * whether they all came precompiled from the build (decision 9) or some had to be compiled now.
 */
export function warmUp(): 'precompiled' | 'compiled' {
  const taking = operations().filter((operation) => operation.requestSchema !== undefined);
  for (const operation of taking) requestCheck(operation);
  const all = taking.every((operation) => precompiled?.has(operation.requestSchema as string));
  return all ? 'precompiled' : 'compiled';
}
