import { type ApiError, apiError, type ErrorCode } from '../errors.js';
import type { Diagnostic } from '../spec/types.js';

export { pointer } from '../spec/jsonPointer.js';

export type { Diagnostic };

/**
 * Whom a diagnostic speaks to: `request`, the client that sent the body (the mock's and the admin API's
 * diagnostics); `answer`, the service that answered it (validateResponse, the proxy's provider verdicts), told what
 * it sent and must send, never a client's advice.
 */
export type Voice = 'request' | 'answer';

export const diagnostic = <C extends string>(code: C, path: string, message: string) => ({
  code,
  path,
  message,
});

/** The error of one mistake at `path`, said once (its message and its one diagnostic's); `headers` go with it. */
export const errorAt = (
  code: ErrorCode,
  path: string,
  message: string,
  headers?: ApiError['headers'],
): ApiError =>
  apiError(code, message, [diagnostic(code, path, message)], headers === undefined ? {} : { headers });

/** `/body/user_group_id` -> `body/user_group_id`, the way messages name a place. */
export const place = (path: string): string => (path === '' ? 'the request' : path.slice(1));
