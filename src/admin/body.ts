import type { IncomingMessage } from 'node:http';
import { type ApiError, errorFromDiagnostics } from '../errors.js';
import { readBody } from '../http/body.js';
import { announcesBody, type RequestHead } from '../http/head.js';
import type { MockContext } from '../runtime/mockContext.js';
import type { Operation } from '../spec/operations.js';
import type { Diagnostic } from '../validate/diagnostic.js';
import { checkContentEncoding, checkContentType } from '../validate/headers.js';
import { parseJsonBody } from '../validate/jsonText.js';
import { checkAdminSchema } from './document.js';

export type BodyRead = { ok: true; value: unknown } | { ok: false; error: ApiError | undefined };

/**
 * Reads and checks the JSON body of an admin call against its operation's request schema, with the service's
 * rules for JSON text. Operations without a request body ignore whatever was sent. `error` is undefined when the
 * client went away mid-body.
 */
export async function readAdminBody(
  req: IncomingMessage,
  head: RequestHead,
  context: MockContext,
  operation: Operation,
): Promise<BodyRead> {
  const schema = operation.requestSchema;
  if (schema === undefined) return { ok: true, value: undefined };
  const fail = (code: ApiError['code'], diagnostics: readonly Diagnostic[], lead?: string): BodyRead => ({
    ok: false,
    error: errorFromDiagnostics(code, diagnostics, lead),
  });
  const call = `${operation.method} ${operation.path}`;
  if (!announcesBody(head)) {
    const message = `${call} needs a JSON body; send it with "Content-Type: application/json" (see openapi/admin.yaml, ${operation.operationId})`;
    return fail('BODY_MISSING', [{ code: 'BODY_MISSING', path: '/body', message }]);
  }
  const header = checkContentEncoding(head.contentEncoding) ?? checkContentType(head.contentType);
  if (header !== undefined) return fail('UNSUPPORTED_MEDIA_TYPE', [header]);
  const read = await readBody(req, head, context.bodyLimit);
  if (!read.ok) return read;
  const parsed = parseJsonBody(read.bytes);
  if (!parsed.ok) return fail(parsed.diagnostics[0]?.code as ApiError['code'], parsed.diagnostics);
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    const message = `body must be a JSON object, not ${kind}`;
    return fail('BODY_NOT_OBJECT', [{ code: 'BODY_NOT_OBJECT', path: '/body', message }]);
  }
  const diagnostics = checkAdminSchema(schema, value, '/body');
  if (diagnostics.length > 0)
    return fail('VALIDATION_FAILED', diagnostics, `the request does not match ${operation.operationId}: `);
  return { ok: true, value };
}
