/**
 * The one error catalogue: every error the mock answers has a stable code, an HTTP status and a title here.
 * Responses are built from these entries; `test/unit/errors.test.ts` keeps this table, the OpenAPI documents' `ErrorCode`
 * enums and the README in step.
 */
import type { components } from './spec/admin-types.generated.js';
import type { Diagnostic, ErrorResponse, ErrorCode as ServiceErrorCode } from './spec/types.js';

/** The codes only the admin API, the proxy and the pages answer: the `ErrorCode` of openapi/admin.yaml. */
export type AdminErrorCode = components['schemas']['ErrorCode'];
export type ErrorCode = ServiceErrorCode | AdminErrorCode;

export interface CatalogueEntry {
  readonly status: number;
  readonly title: string;
}

export const errorCatalogue: { readonly [C in ErrorCode]: CatalogueEntry } = {
  AUTH_MISSING: { status: 401, title: 'Authorization header missing' },
  AUTH_SCHEME: { status: 401, title: 'Authorization is not "Token <API_KEY>"' },
  AUTH_BEARER: { status: 401, title: 'Bearer used instead of Token' },
  AUTH_UNKNOWN_KEY: { status: 401, title: 'Unknown API key' },
  AUTH_GROUP_TOKEN_AS_KEY: { status: 401, title: 'User group token sent as the API key' },
  AUTH_DUPLICATE: { status: 400, title: 'More than one Authorization header' },
  BODY_MISSING: { status: 400, title: 'Request body missing' },
  BODY_INVALID_JSON: { status: 400, title: 'Body is not valid JSON' },
  BODY_INVALID_ENCODING: { status: 400, title: 'Body is not well-formed UTF-8' },
  BODY_FORBIDDEN_KEY: { status: 400, title: 'Forbidden key in body' },
  BODY_DUPLICATE_KEY: { status: 400, title: 'Duplicate key in one JSON object' },
  BODY_TOO_DEEP: { status: 400, title: 'Body nested too deeply' },
  BODY_NUMBER_OUT_OF_RANGE: { status: 400, title: 'Number out of range' },
  BODY_NOT_OBJECT: { status: 400, title: 'Body is not a JSON object' },
  VALIDATION_FAILED: { status: 400, title: 'Body does not match the schema' },
  ROUTE_NOT_FOUND: { status: 404, title: 'No such path' },
  GROUP_NOT_FOUND: { status: 404, title: 'No group with that id' },
  TOKEN_NOT_FOUND: { status: 404, title: 'No group holds that token' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed on this path' },
  REQUEST_TIMEOUT: { status: 408, title: 'Request not received in time' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request headers too large' },
  HTTP_MALFORMED: { status: 400, title: 'Malformed HTTP request' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Body too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Body is not sent as application/json' },
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  INTERNAL_ERROR: { status: 500, title: 'Internal error' },
  STORE_UNAVAILABLE: { status: 503, title: 'Store unavailable' },
  ADMIN_KEY_REQUIRED: { status: 401, title: 'Admin key required' },
  GROUP_EXISTS: { status: 409, title: 'Group id already used in that environment' },
  TENANT_NOT_FOUND: { status: 404, title: 'No such tenant' },
  INJECTED_FAULT: { status: 500, title: 'A fault planned with injectFault or POST /__admin/faults' },
  UPSTREAM_UNREACHABLE: { status: 502, title: 'The proxied service cannot be reached' },
  UPSTREAM_TIMEOUT: { status: 504, title: 'The proxied service did not answer in time' },
  PAGES_NOT_BUILT: { status: 503, title: 'The browser pages are not built' },
};

/** An error answer, before it is rendered: the code decides the status (an injected fault's is on its reply). */
export interface ApiError {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details: readonly Diagnostic[];
  readonly headers?: Readonly<Record<string, string>>;
}

export function apiError(
  code: ErrorCode,
  message: string,
  details: readonly Diagnostic[] = [],
  extra: Pick<ApiError, 'headers'> = {},
): ApiError {
  return { code, message, details, ...extra };
}

/** The error made from diagnostics, the first one's message leading. */
export function errorFromDiagnostics(
  code: ErrorCode,
  details: readonly Diagnostic[],
  lead?: string,
): ApiError {
  const first = details[0]?.message ?? errorCatalogue[code].title;
  const more =
    details.length > 1
      ? ` (and ${details.length - 1} more problem${details.length > 2 ? 's' : ''} in details)`
      : '';
  return apiError(code, `${lead ?? ''}${first}${more}`, details);
}

export const statusOf = (error: ApiError): number => errorCatalogue[error.code].status;

export function errorBody(error: ApiError): ErrorResponse {
  return {
    success: 0,
    error: { code: error.code as ServiceErrorCode, message: error.message, details: [...error.details] },
  };
}

/** The prefix of every line the mock logs or prints about a client's mistake. */
export const product = 'user-group-mock';

/**
 * The statuses whose answers in the contract say the service will not serve the call now, and when to retry
 * (`Retry-After`): TooManyRequests (429) and Unavailable (503). They say nothing of how it behaves.
 */
export const retryLaterStatuses: ReadonlySet<number> = new Set([429, 503]);

/**
 * A request whose key was known when it arrived, and whose tenant is gone when its operation runs: removed since
 * (here, or on another replica sharing the database, whose key ring this one has not reloaded yet).
 */
export const tenantRemoved = (): ApiError =>
  apiError(
    'AUTH_UNKNOWN_KEY',
    'the tenant of this API key has been removed (on this server or another replica); take a new tenant with POST /__admin/tenants',
    [],
    { headers: { 'www-authenticate': 'Token' } },
  );
