import { type ApiError, errorFromDiagnostics } from '../errors.js';
import { inspectJsonValue } from '../validate/jsonValue.js';
import type { PipelineRequest } from './pipelineRequest.js';

/**
 * Step 6, value checks: what JSON Schema cannot say (prototype-poisoning keys, lone surrogates, numbers out of
 * range, depth; skipped when the text already showed none can be there, `clean`), then that the body is an object.
 */
export function checkValues(request: PipelineRequest): ApiError | undefined {
  const body = request.body;
  if (!request.clean) {
    const found = inspectJsonValue(body);
    const first = found[0];
    if (first !== undefined) return errorFromDiagnostics(first.code, found);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    const kind = body === null ? 'null' : Array.isArray(body) ? 'an array' : `a ${typeof body}`;
    const message = `body must be a JSON object, not ${kind}`;
    return errorFromDiagnostics('BODY_NOT_OBJECT', [{ code: 'BODY_NOT_OBJECT', path: '/body', message }]);
  }
  return undefined;
}
