import type { Diagnostic, ErrorCode } from '../spec/types.js';

/** Codes the client adds for failures that never reached a well-formed error answer. */
export type ClientErrorCode = 'NETWORK_ERROR' | 'UNEXPECTED_RESPONSE';

/**
 * What every failed call of the reference client rejects with: the HTTP status (0 when no answer came), the
 * service's stable error code, its message and one diagnostic per problem (`details` of the error envelope).
 */
export class UserGroupServiceError extends Error {
  override readonly name = 'UserGroupServiceError';

  constructor(
    readonly status: number,
    readonly code: ErrorCode | ClientErrorCode,
    message: string,
    readonly diagnostics: readonly Diagnostic[] = [],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Narrows an unknown rejection, e.g. `if (isUserGroupServiceError(e) && e.code === 'TOKEN_NOT_FOUND')`. */
export const isUserGroupServiceError = (error: unknown): error is UserGroupServiceError =>
  error instanceof UserGroupServiceError;
