import type { IncomingMessage } from 'node:http';
import { type ApiError, errorFromDiagnostics } from '../errors.js';
import { readBody } from '../http/collectBody.js';
import { announcesBody, type RequestHead } from '../http/head.js';
import { checkLimits } from '../pipeline/checkLimits.js';
import { checkMediaType } from '../pipeline/checkMediaType.js';
import { checkValues } from '../pipeline/checkValues.js';
import { parseBody } from '../pipeline/parseBody.js';
import { pipelineRequest } from '../pipeline/pipelineRequest.js';
import { failure, ok, type Result } from '../result.js';
import type { MockContext } from '../runtime/mockContext.js';
import type { Operation } from '../spec/operations.js';
import { diagnostic } from '../validate/diagnostic.js';
import { checkAdminSchema } from './adminDocument.js';

/** The checked body, or the error to answer (undefined when the client went away mid-body). */
export type BodyRead = Result<unknown, ApiError | undefined>;

/**
 * Reads and checks the JSON body of an admin call through the service's pipeline steps (limits, media type, parse,
 * value checks), then against its operation's schema in openapi/admin.yaml. Operations without a request body
 * take none: a body other than `{}` is refused rather than ignored (a filter sent there would silently not apply).
`error` is undefined when the client went away mid-body.
 */
export async function readAdminBody(
  req: IncomingMessage,
  head: RequestHead,
  context: MockContext,
  operation: Operation,
): Promise<BodyRead> {
  const schema = operation.requestSchema;
  if (schema === undefined)
    return announcesBody(head) ? noBodyExpected(req, head, context, operation) : ok(undefined);
  const request = pipelineRequest({
    method: operation.method,
    path: operation.path,
    contentType: head.contentTypes ?? head.contentType,
    contentEncoding: head.contentEncoding,
    bodySent: announcesBody(head),
    contentLength: head.contentLength,
  });
  const refused = checkLimits(request, undefined, context.bodyLimit) ?? checkMediaType(request);
  if (refused !== undefined) return failure(refused);
  const read = await readBody(req, head.contentLength, context.bodyLimit);
  if (!read.ok) return read;
  const invalid = parseBody(request, read.value) ?? checkValues(request);
  if (invalid !== undefined) return failure(invalid);
  const diagnostics = checkAdminSchema(schema, request.body, '/body');
  if (diagnostics.length > 0) {
    const lead = `the request does not match ${operation.operationId}: `;
    return failure(errorFromDiagnostics('VALIDATION_FAILED', diagnostics, lead));
  }
  return ok(request.body);
}

/**
 * An operation without a request body, sent one: `{}` (what some clients send by default) is taken as none; anything
 * else is refused, since ignoring it would do something else than the caller asked (a reset "of one environment"
 * that empties all of them).
 */
async function noBodyExpected(
  req: IncomingMessage,
  head: RequestHead,
  context: MockContext,
  operation: Operation,
): Promise<BodyRead> {
  const read = await readBody(req, head.contentLength, context.bodyLimit);
  if (!read.ok) return read;
  const text = new TextDecoder().decode(read.value).trim();
  if (text === '' || /^\{\s*\}$/.test(text)) return ok(undefined);
  const name = `${operation.method} ${operation.path}`;
  const what =
    operation.operationId === 'reset'
      ? '; a reset empties every environment of its tenant, and a test that needs a state of its own takes a tenant (POST /__admin/tenants)'
      : ' (openapi/admin.yaml lists what it takes)';
  const message = `${name} takes no body and would ignore this one; send it without a body${what}`;
  return failure(
    errorFromDiagnostics('VALIDATION_FAILED', [diagnostic('VALIDATION_FAILED', '/body', message)]),
  );
}
