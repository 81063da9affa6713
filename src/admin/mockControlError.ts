import { type ApiError, type ErrorCode, product } from '../errors.js';
import type { Diagnostic } from '../spec/types.js';

/**
 * What a fixture control rejects with when the calling code misused it: a group or fault that breaks its schema
 * (`VALIDATION_FAILED`), a tenant that does not exist (`TENANT_NOT_FOUND`), a group already there
 * (`GROUP_EXISTS`), a journal query that is not one. `code` is the catalogue's (src/errors.ts, the same as the admin
 * API answers), `details` the diagnostics, each with its JSON pointer; the message names the control and the fix.
 */
export class MockControlError extends Error {
  override readonly name = 'MockControlError';
  readonly code: ErrorCode;
  /** The control that refused, e.g. `injectFault`. */
  readonly control: string;
  readonly details: readonly Diagnostic[];

  constructor(control: string, error: Pick<ApiError, 'code' | 'message' | 'details'>) {
    super(`${product}: ${control}: ${error.message}`);
    this.code = error.code;
    this.control = control;
    this.details = error.details;
  }
}
