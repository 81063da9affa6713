import { type ApiError, apiError, type ErrorCode, product } from '../errors.js';
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

/**
 * A control given a tenant id that names no tenant (`where`: the remote mock's address), or something else in its
 * place: a typo or a tenant object would otherwise read an empty journal, and "no invalid requests" pass for nothing.
 */
export function tenantNotFound(control: string, tenant: unknown, where = ''): MockControlError {
  const given =
    typeof tenant === 'string'
      ? `no tenant "${tenant}"`
      : `the tenant argument is ${tenant === null ? 'null' : typeof tenant}, not a tenant id`;
  return new MockControlError(
    control,
    apiError(
      'TENANT_NOT_FOUND',
      `${given}${where}; call the tenant's own controls (tenant.requests(), tenant.reset(), ...), pass the id that createTenant() returned (tenant.id), or nothing for the default tenant`,
    ),
  );
}
