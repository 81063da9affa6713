import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { defaultTenantId } from '../domain/model.js';
import type { ApiError } from '../errors.js';
import { authenticateOnConnection, resolveUnknownKey } from '../http/connectionKeys.js';
import type { RequestHead } from '../http/head.js';
import { PipelineRequest } from '../pipeline/pipelineRequest.js';
import { ok, type Result } from '../result.js';
import type { MockContext } from '../runtime/mockContext.js';
import type { Route } from '../spec/operations.js';
import { errorAt } from '../validate/diagnostic.js';
import { adminRoute, securityOf } from './adminDocument.js';

const adminKeyHeader = 'x-admin-key';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether a call may use the admin API: always when no admin key is set, else only with `X-Admin-Key` equal to it.
 * Both sides are hashed first, so the comparison takes the same time whatever the length or prefix of a guess.
 */
export function adminKeyCheck(adminKey: string | undefined): (req: IncomingMessage) => ApiError | undefined {
  if (adminKey === undefined) return () => undefined;
  const expected = digest(adminKey);
  return (req) => {
    const sent = req.headersDistinct[adminKeyHeader] ?? [];
    const [value] = sent;
    if (sent.length === 1 && value !== undefined && timingSafeEqual(digest(value), expected))
      return undefined;
    const form = '"X-Admin-Key: <the --admin-key value>"';
    const message =
      sent.length === 0
        ? `this server was started with an admin key; send it on every /__admin call as ${form}`
        : sent.length > 1
          ? `the request carries ${sent.length} X-Admin-Key headers; send exactly one, ${form}`
          : `X-Admin-Key does not match the admin key this server was started with; send ${form}`;
    return errorAt('ADMIN_KEY_REQUIRED', `/headers/${adminKeyHeader}`, message);
  };
}

/**
 * The tenant an admin call acts on: the tenant of the API key in `Authorization`, or the default tenant when the
 * call carries none. A malformed or unknown key is refused (401), never widened to the default tenant; a key the key
 * ring does not know is resolved as the service resolves it (`resolveUnknownKey`).
 */
export async function scopeOf(
  req: IncomingMessage,
  head: RequestHead,
  context: MockContext,
): Promise<Result<string>> {
  if (head.authorization.length === 0) return ok(defaultTenantId);
  const request = new PipelineRequest(req.method ?? 'GET', '', head);
  const refused = authenticateOnConnection(request, req.socket, context);
  if (refused === undefined) return ok(request.owner?.tenant ?? defaultTenantId);
  const found = await resolveUnknownKey(head.authorization, refused, context);
  return found.ok ? ok(found.value.tenant) : found;
}

/** What an admin call must carry: the admin key (when the mock has one), and whether `Authorization` picks a scope. */
export interface Access {
  readonly adminKey: boolean;
  readonly scope: boolean;
}

const guarded: Access = { adminKey: true, scope: true };

/**
 * The access rules of a routed admin call, read from its operation's security in openapi/admin.yaml: the admin key
 * when a requirement names `AdminKey`, a scope when one names `TenantKey`. The public documents (`/openapi.json`)
 * name neither. A wrong method on a path takes the rules of the path's operations; an unknown `/__admin/` path
 * needs the admin key, so that it reveals nothing without it.
 */
export function accessOf(route: Route, path: string): Access {
  const routed =
    route.kind === 'method-not-allowed' && route.allow[0] !== undefined
      ? adminRoute(route.allow[0], path)
      : route;
  if (routed.kind !== 'operation') return guarded;
  const schemes = securityOf(routed.operation).flat();
  return { adminKey: schemes.includes('AdminKey'), scope: schemes.includes('TenantKey') };
}
