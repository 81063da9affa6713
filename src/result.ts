import type { ApiError } from './errors.js';

/**
 * What every fallible step, rule and control returns instead of throwing: a value, or the error to answer. The
 * error is an `ApiError` (code, message, diagnostics) unless said otherwise.
 */
export type Result<T, E = ApiError> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: E };

export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });

export const failure = <E = ApiError>(error: E): Result<never, E> => ({ ok: false, error });
