import { type ApiError, errorFromDiagnostics } from '../errors.js';
import { operations, type Route } from '../spec/operations.js';
import { type Diagnostic, diagnostic } from '../validate/diagnostic.js';
import { route } from '../validate/schemaChecks.js';
import type { PipelineRequest, Routed } from './pipelineRequest.js';

/**
 * The route step: the operation of the service document for the method and path, which makes the record `Routed`,
 * or the error, 404 / 405 (with `Allow`): tell them apart by `'code' in`.
 */
export function findOperation<R extends PipelineRequest>(request: R): Routed<R> | ApiError {
  const found = route(request.method, request.path);
  if (found.kind === 'operation') return Object.assign(request, { operation: found.operation });
  const problem = routeDiagnostic(found, request.method, request.path);
  if (found.kind === 'not-found') return errorFromDiagnostics('ROUTE_NOT_FOUND', [problem]);
  return {
    ...errorFromDiagnostics('METHOD_NOT_ALLOWED', [problem]),
    headers: { allow: found.allow.join(', ') },
  };
}

/** The diagnostic for a request that matched no operation, with the likely mistake when it is a common one. */
function routeDiagnostic(
  route: Exclude<Route, { kind: 'operation' }>,
  method: string,
  path: string,
): Diagnostic {
  if (route.kind === 'method-not-allowed') {
    const uses = operations()
      .filter((o) => o.path === path)
      .map((o) => `${o.method} (${o.operationId})`)
      .join(', ');
    return diagnostic(
      'METHOD_NOT_ALLOWED',
      '/method',
      `${method} is not allowed on ${path}; it answers ${uses}`,
    );
  }
  const near = route.known.find((known) => sameIgnoringCaseAndSlash(known, path));
  const hint =
    near === undefined
      ? `the service has ${route.known.map((k) => `"${k}"`).join(', ')}`
      : path.endsWith('/') && near === path.slice(0, -1)
        ? `did you mean "${near}"? The path has no trailing slash`
        : `did you mean "${near}"? Paths are case-sensitive`;
  return diagnostic('ROUTE_NOT_FOUND', '/path', `no operation at "${path}"; ${hint}`);
}

const sameIgnoringCaseAndSlash = (a: string, b: string): boolean =>
  a.toLowerCase().replace(/\/+$/, '') === b.toLowerCase().replace(/\/+$/, '');
