import { errorCatalogue, validateResponse } from '../../src/index.js';
import { serviceDocument } from '../../src/spec/loadDocument.js';
import { route } from '../../src/validate/schemaChecks.js';
import { SchemaRegistry } from '../../src/validate/schemas.js';

let registry: SchemaRegistry | undefined;
const errorResponseProblems = (body: unknown): string[] => {
  if (registry === undefined) {
    registry = new SchemaRegistry();
    registry.register('service', serviceDocument());
  }
  return registry
    .check(
      'service',
      '/components/schemas/ErrorResponse',
    )(body)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
};

/**
 * What is wrong with an answer, judged by the document: a status the operation documents is checked with
 * `validateResponse`; any other error (unknown paths, 431 from the HTTP parser) must still be the `ErrorResponse`
 * envelope. Every error's status must be the one the error catalogue gives its code.
 */
export function answerProblems(method: string, path: string, status: number, body: unknown): string[] {
  const found = route(method, path);
  const documented = found.kind === 'operation' && found.operation.responseSchemas.has(String(status));
  const problems = documented
    ? validateResponse({ method, path, status, body }).diagnostics.map((d) => `${d.path} ${d.message}`)
    : errorResponseProblems(body);
  if (status >= 400) {
    const code = (body as { error?: { code?: string } } | undefined)?.error?.code;
    const entry = code === undefined ? undefined : errorCatalogue[code as keyof typeof errorCatalogue];
    if (entry === undefined) problems.push(`error code ${code} is not in the catalogue`);
    else if (entry.status !== status)
      problems.push(`${code} answered ${status}, the catalogue says ${entry.status}`);
  }
  return problems;
}
