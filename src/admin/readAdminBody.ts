import type { IncomingMessage } from 'node:http';
import { type ApiError, errorFromDiagnostics } from '../errors.js';
import { type ClientGone, readBody } from '../http/collectBody.js';
import type { RequestHead } from '../http/head.js';
import { Pipeline } from '../pipeline/pipeline.js';
import { PipelineRequest, type Routed } from '../pipeline/pipelineRequest.js';
import { failure, ok, type Result } from '../result.js';
import type { Operation } from '../spec/operations.js';
import { errorAt } from '../validate/diagnostic.js';
import { checkAdminSchema } from './adminDocument.js';
import type { AdminHost } from './adminHost.js';

/** The admin document's schema of the operation, in the place of the service's `checkSchema`. */
function checkAdminBody({ operation, body }: Routed): ApiError | undefined {
  const found = checkAdminSchema(operation.requestSchema ?? '', body, '/body');
  const lead = `the request does not match ${operation.operationId}: `;
  return found.length === 0 ? undefined : errorFromDiagnostics('VALIDATION_FAILED', found, lead);
}

/** The admin body's way: no key (the admin API has its own access rules) and no query step (it takes parameters). */
const adminWay = new Pipeline({ authenticate: null, checkQuery: null, checkSchema: checkAdminBody });

/**
 * Reads and checks the JSON body of an admin call through the service's pipeline (limits, media type, parse, value
 * checks), with its operation's schema in openapi/admin.yaml as the last step. Operations without a request body
 * take none: a body other than `{}` is refused rather than ignored (a filter sent there would silently not apply).
 * Resolves to the checked body, the error to answer, or `ClientGone` when the client went away mid-body.
 */
export async function readAdminBody(
  req: IncomingMessage,
  head: RequestHead,
  host: Pick<AdminHost, 'bodyLimit'>,
  operation: Operation,
): Promise<Result<unknown> | ClientGone> {
  const takesBody = operation.requestSchema !== undefined;
  if (!takesBody && !head.bodySent) return ok(undefined);
  const request = Object.assign(new PipelineRequest(operation.method, operation.path, head), { operation });
  const refused = takesBody ? adminWay.head(request, { bodyLimit: host.bodyLimit }) : undefined;
  if (refused !== undefined) return failure(refused);
  const read = await readBody(req, head.contentLength, host.bodyLimit);
  if (!read.ok) return read;
  if (!takesBody) return noBodyExpected(read.value, operation);
  const invalid = adminWay.body(request, { bodyLimit: host.bodyLimit }, read.value);
  return invalid === undefined ? ok(request.body) : failure(invalid);
}

/**
 * An operation without a request body, sent one: `{}` (what some clients send by default) is taken as none; anything
 * else is refused, since ignoring it would do something else than the caller asked (a reset "of one environment"
 * that empties all of them).
 */
function noBodyExpected(bytes: Uint8Array, operation: Operation): Result<undefined> {
  const text = new TextDecoder().decode(bytes).trim();
  if (text === '' || /^\{\s*\}$/.test(text)) return ok(undefined);
  const name = `${operation.method} ${operation.path}`;
  const what =
    operation.operationId === 'reset'
      ? '; a reset empties every environment of its tenant, and a test that needs a state of its own takes a tenant (POST /__admin/tenants)'
      : ' (openapi/admin.yaml lists what it takes)';
  const message = `${name} takes no body and would ignore this one; send it without a body${what}`;
  return failure(errorAt('VALIDATION_FAILED', '/body', message));
}
