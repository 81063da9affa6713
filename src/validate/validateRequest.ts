import { operations } from '../spec/operations.js';
import { checkRequestBody, route } from './contract.js';
import type { Diagnostic } from './diagnostic.js';
import { checkContentEncoding, checkContentType, lowerCaseHeaders, readApiKey } from './headers.js';
import { parseJsonBody } from './jsonText.js';
import { routeDiagnostic } from './routes.js';

export interface RequestToValidate {
  readonly method: string;
  /** The request path; a query string is ignored. */
  readonly path: string;
  /** Header names in any case; values as strings (or arrays for repeated headers). */
  readonly headers?: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The parsed JSON body, or its raw text (string or bytes), or undefined when none was sent. */
  readonly body?: unknown;
}

export interface RequestValidation {
  readonly ok: boolean;
  readonly operationId?: string;
  readonly diagnostics: readonly Diagnostic[];
  /**
   * Legal but risky values, which the mock accepts and reports in `X-Mock-Notice` (an integer literal beyond
   * 2^53 - 1 in JSON text, which JavaScript clients round). They never make `ok` false.
   */
  readonly warnings: readonly Diagnostic[];
}

/**
 * Checks a request the way the mock does: route, `Authorization: Token <key>` form, JSON Content-Type and the
 * body schema. Returns diagnostics; never throws, whatever it is given.
 */
export function validateRequest(request: RequestToValidate): RequestValidation {
  try {
    return check(request);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      diagnostics: [
        { code: 'UNREADABLE_REQUEST', path: '', message: `the request could not be read: ${reason}` },
      ],
      warnings: [],
    };
  }
}

function check(request: RequestToValidate): RequestValidation {
  if (request === null || typeof request !== 'object' || typeof request.method !== 'string')
    return {
      ok: false,
      diagnostics: [
        {
          code: 'UNREADABLE_REQUEST',
          path: '',
          message:
            'validateRequest takes one request object { method, path, headers, body }, e.g. { method: "GET", path: "/api/user", headers: {...}, body: {...} }',
        },
      ],
      warnings: [],
    };
  const method = String(request?.method ?? '').toUpperCase();
  const path = String(request?.path ?? '').split('?')[0] as string;
  const found = route(method, path);
  if (found.kind !== 'operation') {
    return { ok: false, diagnostics: [routeDiagnostic(found, method, path, operations())], warnings: [] };
  }
  const { operation } = found;
  const headers = lowerCaseHeaders(request.headers);
  const diagnostics: Diagnostic[] = [];
  let warnings: readonly Diagnostic[] = [];
  const auth = readApiKey(headers.authorization);
  if (!auth.ok) diagnostics.push(auth.diagnostic);
  const body = request.body;
  if (body === undefined) {
    diagnostics.push({
      code: 'BODY_MISSING',
      path: '/body',
      message: `${method} ${path} needs a JSON body; send it with a Content-Length header (fetch cannot send a GET body)`,
    });
  } else {
    const contentType = checkContentType(headers['content-type']);
    if (contentType !== undefined) diagnostics.push(contentType);
    const encoding = checkContentEncoding(headers['content-encoding']);
    if (encoding !== undefined) diagnostics.push(encoding);
    const parsed =
      typeof body === 'string' || body instanceof Uint8Array
        ? parseJsonBody(body)
        : { ok: true as const, value: body };
    if (!parsed.ok) diagnostics.push(...parsed.diagnostics);
    else {
      diagnostics.push(
        ...checkRequestBody(operation, parsed.value, 'clean' in parsed && parsed.clean).diagnostics,
      );
      warnings = ('warnings' in parsed ? parsed.warnings : undefined) ?? [];
    }
  }
  return { ok: diagnostics.length === 0, operationId: operation.operationId, diagnostics, warnings };
}
