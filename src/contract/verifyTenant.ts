import type { Diagnostic, TenantHandle } from '../spec/types.js';
import {
  adminHeaders,
  adminRequest,
  adminUrlOf,
  errorCodeOf,
  reasonOf,
  routeMissing,
} from './adminRequest.js';

/**
 * What asking a provider for a tenant of verify's own gave: the tenant; no tenants API there (`unavailable`); a
 * refusal the caller can fix with a flag (`refused`, e.g. the admin key); or another failure.
 */
export type VerifyTenant =
  | { readonly kind: 'created'; readonly tenant: TenantHandle }
  | { readonly kind: 'unavailable'; readonly status: number }
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'failed'; readonly reason: string };

/** `POST /__admin/tenants` on the provider, from the default scope: a fresh tenant with its own keys and groups. */
export async function createVerifyTenant(baseUrl: string, adminKey?: string): Promise<VerifyTenant> {
  const url = `${adminUrlOf(baseUrl)}/tenants`;
  const answer = await adminRequest('POST', url, adminHeaders(undefined, adminKey));
  const { status } = answer;
  if (status === undefined) return { kind: 'failed', reason: `POST ${url} failed: ${answer.text}` };
  if (status === 201 && isTenant(answer.body)) return { kind: 'created', tenant: answer.body };
  if (routeMissing.has(status)) {
    const target = await proxiedTarget(baseUrl, adminKey);
    return target === undefined
      ? { kind: 'unavailable', status }
      : {
          kind: 'refused',
          reason: `${baseUrl} is a validating proxy in front of ${target} (its GET /__admin/health says mode: proxy): it keeps no tenants or groups, so verify cannot set the provider states up through it. Verify the service itself (--provider-base-url ${target}), or pass --state-setup-url URL and --api-key KEY to set the states up on that service while the requests go through the proxy`,
        };
  }
  if (errorCodeOf(answer) === 'ADMIN_KEY_REQUIRED')
    return {
      kind: 'refused',
      reason: `${baseUrl} asks for an admin key on /__admin calls (${reasonOf(answer)}); pass --admin-key KEY or set USER_GROUP_MOCK_ADMIN_KEY`,
    };
  return {
    kind: 'failed',
    reason: `POST ${url} answered ${status} (${reasonOf(answer)}) instead of a tenant { id, api_keys }`,
  };
}

/** The target of a provider that is a validating proxy (`mode: proxy` in its health), else undefined. */
async function proxiedTarget(baseUrl: string, adminKey: string | undefined): Promise<string | undefined> {
  const answer = await adminRequest(
    'GET',
    `${adminUrlOf(baseUrl)}/health`,
    adminHeaders(undefined, adminKey),
  );
  const { mode, target } = (answer.body ?? {}) as { mode?: unknown; target?: unknown };
  return mode === 'proxy' && typeof target === 'string' ? target : undefined;
}

/**
 * `DELETE /__admin/tenants/{id}` with the tenant's own key (a scope that can remove that tenant and nothing else).
 * Resolves with why it could not, or undefined once the tenant is gone.
 */
export async function removeVerifyTenant(
  baseUrl: string,
  tenant: TenantHandle,
  adminKey?: string,
): Promise<string | undefined> {
  const url = `${adminUrlOf(baseUrl)}/tenants/${encodeURIComponent(tenant.id)}`;
  const answer = await adminRequest('DELETE', url, adminHeaders(tenant.api_keys.Customer, adminKey));
  if (answer.status === 204) return undefined;
  if (answer.status === undefined) return `DELETE ${url} failed: ${answer.text}`;
  return `DELETE ${url} answered ${answer.status} (${reasonOf(answer)})`;
}

/**
 * What the mock found wrong in the requests of the run: `GET /__admin/requests?invalid=true` in the tenant's scope
 * (its own key), one line per request, e.g. `PUT /api/user 400: WRONG_TYPE at /body/name: body/name must be a string, not a number`.
 * Only requests that carried the tenant's key are in its journal; one without a key goes to the default scope's.
 * Empty when the journal cannot be read: the verdict stands without it.
 */
export async function invalidRequestsOf(
  baseUrl: string,
  tenant: TenantHandle,
  adminKey?: string,
): Promise<string[]> {
  const url = `${adminUrlOf(baseUrl)}/requests?invalid=true`;
  const answer = await adminRequest('GET', url, adminHeaders(tenant.api_keys.Customer, adminKey));
  if (answer.status !== 200 || !Array.isArray(answer.body)) return [];
  return (answer.body as unknown[]).flatMap(invalidRequestLine);
}

function invalidRequestLine(entry: unknown): string[] {
  const { method, path, status, diagnostics, fault } = (entry ?? {}) as Record<string, unknown>;
  if (!Array.isArray(diagnostics) || diagnostics.length === 0) return [];
  const said = (diagnostics as Array<Partial<Diagnostic> | null>)
    .map((d) => `${d?.code ?? ''}${d?.path ? ` at ${d.path}` : ''}${d?.message ? `: ${d.message}` : ''}`)
    .join('; ');
  const whose = typeof fault === 'string' ? faultWords[fault] : undefined;
  return [
    `${String(method)} ${String(path)} ${String(status)}${whose === undefined ? '' : ` (${whose})`}: ${said}`,
  ];
}

/**
 * Whose mistake a line names, when the journal says it is not the client's alone (a validating proxy's journal):
 * a request both sides broke is listed as both's, so that the provider's part is not read as the client's.
 */
const faultWords: Readonly<Record<string, string>> = {
  provider: "the provider's fault",
  both: "the client's and the provider's fault",
};

function isTenant(body: unknown): body is TenantHandle {
  const tenant = body as Partial<TenantHandle> | undefined;
  return (
    typeof tenant?.id === 'string' &&
    typeof tenant.api_keys?.Customer === 'string' &&
    typeof tenant.api_keys.Testing === 'string'
  );
}
