import { type ApiError, errorFromDiagnostics } from '../errors.js';
import { checkRequestSchema } from '../validate/schemaChecks.js';
import type { Routed } from './pipelineRequest.js';

/** Step 7, schema: the body against its operation's request schema (after `checkValues`: an object). */
export function checkSchema(request: Routed): ApiError | undefined {
  const { operation } = request;
  const found = checkRequestSchema(operation, request.body);
  if (found.length === 0) return undefined;
  // A risky value the schema refuses is not accepted after all: its warning ("the mock accepts it") would be untrue.
  if (request.warnings.length > 0)
    request.warnings = request.warnings.filter((w) => !found.some((d) => d.path === w.path));
  return errorFromDiagnostics(
    'VALIDATION_FAILED',
    found,
    `the request body does not match ${operation.operationId}: `,
  );
}
