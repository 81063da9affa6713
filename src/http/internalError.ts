import { type ApiError, apiError } from '../errors.js';
import type { Log } from '../runtime/log.js';

/** The answer to a bug in user-group-mock itself (the mock or the proxy), logged with its stack. */
export function internalError(context: { readonly logger: Log }, error: Error): ApiError {
  context.logger.error({ err: error }, 'internal error');
  return apiError(
    'INTERNAL_ERROR',
    'user-group-mock failed internally; this is a bug in user-group-mock, not in the client (nor in a service behind the proxy). Retry, and report it with the server log.',
  );
}
