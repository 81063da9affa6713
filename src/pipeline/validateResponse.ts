import type { Diagnostic } from '../validate/diagnostic.js';
import { checkAnswerContentType } from '../validate/headers.js';
import { parseJsonBody } from '../validate/jsonText.js';
import { checkResponseBody, checkUnroutedAnswer } from '../validate/schemaChecks.js';
import { findOperation } from './findOperation.js';
import { PipelineRequest } from './pipelineRequest.js';

export interface ResponseToValidate {
  /** The method and path of the request this response answers. */
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** The parsed JSON body, or its raw text (string or bytes). */
  readonly body: unknown;
  /**
   * The answer's Content-Type, when known (null: the answer had none): a JSON body sent as another type, or without
   * one, is a diagnostic (`UNSUPPORTED_MEDIA_TYPE`), and a body that is not JSON has its type named.
   */
  readonly contentType?: string | null;
}

export interface ResponseValidationOptions {
  /** Accept fields the document does not name (for recordings of a real server). Default: false, strict. */
  readonly allowAdditionalProperties?: boolean;
}

export interface ResponseValidation {
  readonly ok: boolean;
  readonly operationId?: string;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Checks a response against the document's schema for its operation and status; the answer to a method or path
 * without an operation, against what the document gives for one (405, 404). Never throws.
 */
export function validateResponse(
  response: ResponseToValidate,
  options: ResponseValidationOptions = {},
): ResponseValidation {
  if (response === null || typeof response !== 'object' || typeof response.method !== 'string')
    return unreadable(
      'validateResponse takes the method and path of the request with the answer: { method, path, status, body }',
    );
  if (response.status === undefined || response.status === null)
    return unreadable(
      'validateResponse needs the status the service answered with the body: { method, path, status, body }, e.g. status: 200',
    );
  try {
    const path = String(response.path ?? '').split('?')[0] as string;
    const request = new PipelineRequest(response.method.toUpperCase(), path, { bodySent: false });
    findOperation(request);
    return judgeResponse(request, response, options);
  } catch (error) {
    return unreadable(
      `the response could not be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

const unreadable = (message: string): ResponseValidation => ({
  ok: false,
  diagnostics: [{ code: 'UNREADABLE_RESPONSE', path: '', message }],
});

/** `validateResponse` of the answer to a request already through `findOperation` (the proxy's). */
export function judgeResponse(
  request: PipelineRequest,
  response: ResponseToValidate,
  options: ResponseValidationOptions,
): ResponseValidation {
  const operation = request.operation;
  const named = operation === undefined ? {} : { operationId: operation.operationId };
  const raw = response.body;
  let body = raw;
  if (typeof raw === 'string' || raw instanceof Uint8Array) {
    const parsed = parseJsonBody(raw, 'answer');
    if (!parsed.ok)
      return { ok: false, ...named, diagnostics: parsed.error.details.map((d) => notJson(d, response, raw)) };
    body = parsed.value.value;
  }
  const status = Number(response.status);
  const lenient = options.allowAdditionalProperties === true;
  const checked =
    operation === undefined
      ? checkUnroutedAnswer(request.method, request.path, status, body, lenient)
      : checkResponseBody(operation, status, body, lenient);
  // A JSON body's type, when the caller knows it (a body that is not JSON at all is named above, type included).
  const type =
    response.contentType === undefined
      ? undefined
      : checkAnswerContentType(response.contentType ?? undefined);
  const diagnostics = type === undefined ? checked : [type, ...checked];
  return { ok: diagnostics.length === 0, ...named, diagnostics };
}

/**
 * An answer that is not JSON at all, said with what it was (content type, status, first characters) and what the
 * service must send instead: the documented body, or for an error the envelope.
 */
function notJson(found: Diagnostic, response: ResponseToValidate, raw: string | Uint8Array): Diagnostic {
  if (found.code !== 'BODY_INVALID_JSON' && found.code !== 'BODY_MISSING') return found;
  const status = Number(response.status);
  const text = typeof raw === 'string' ? raw : Buffer.from(raw).toString('utf8');
  const start = text.trim().slice(0, 40);
  const what = [
    response.contentType ?? 'no Content-Type',
    `status ${status}`,
    ...(start === '' ? [] : [`starting ${JSON.stringify(start)}${text.trim().length > 40 ? '…' : ''}`]),
  ].join(', ');
  const instead =
    status >= 400
      ? 'with the error envelope { "success": 0, "error": { "code", "message", "details" } }'
      : 'with the body the document gives for this status';
  const message =
    found.code === 'BODY_MISSING'
      ? `the answer has no body (${what}); the service must answer application/json ${instead}`
      : `the answer is not JSON (${what}); the service must answer application/json ${instead}`;
  return { ...found, message };
}
