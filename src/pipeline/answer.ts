import type { Decision } from '../domain/userGroups.js';
import { type ApiError, errorBody, statusOf } from '../errors.js';
import type { PipelineRequest } from './pipelineRequest.js';

/** An answer before it is written: status, JSON body and extra headers. */
export interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The answer to an error: its status, the error envelope, and its headers (`WWW-Authenticate`, `Allow`, ...). */
export const errorReply = (error: ApiError): Reply => ({
  status: statusOf(error),
  body: errorBody(error),
  ...(error.headers ? { headers: error.headers } : {}),
});

/**
 * The answer step: 200 with the operation's body; the rule's notice and the body's warnings go in `X-Mock-Notice`.
 */
export function answer(request: PipelineRequest, decision: Decision<unknown>): Reply {
  const warnings = request.warnings;
  const notices =
    warnings.length === 0 ? decision.notice : [decision.notice, ...warnings.map((w) => w.message)];
  if (notices === undefined) return { status: 200, body: decision.body };
  const notice = typeof notices === 'string' ? notices : notices.filter(Boolean).join(' | ');
  return { status: 200, body: decision.body, headers: { 'x-mock-notice': notice } };
}
