import { type ApiError, errorFromDiagnostics } from '../errors.js';
import { operations } from '../spec/operations.js';
import { routeDiagnostic } from '../validate/routeDiagnostic.js';
import { route } from '../validate/schemaChecks.js';
import type { PipelineRequest } from './pipelineRequest.js';

/** Step 1, route: the operation of the service document for the method and path, or 404 / 405 (with `Allow`). */
export function findOperation(request: PipelineRequest): ApiError | undefined {
  const found = route(request.method, request.path);
  if (found.kind === 'operation') {
    request.operation = found.operation;
    return undefined;
  }
  const diagnostic = routeDiagnostic(found, request.method, request.path, operations());
  if (found.kind === 'not-found') return errorFromDiagnostics('ROUTE_NOT_FOUND', [diagnostic]);
  return {
    ...errorFromDiagnostics('METHOD_NOT_ALLOWED', [diagnostic]),
    headers: { allow: found.allow.join(', ') },
  };
}
