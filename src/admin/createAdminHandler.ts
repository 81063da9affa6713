import type { IncomingMessage, ServerResponse } from 'node:http';
import { defaultTenantId } from '../domain/model.js';
import type { ApiError } from '../errors.js';
import type { RequestHead } from '../http/head.js';
import { send } from '../http/respond.js';
import { errorReply, type Reply } from '../pipeline/answer.js';
import { ok } from '../result.js';
import { errorAt } from '../validate/diagnostic.js';
import { accessOf, adminKeyCheck } from './access.js';
import { type AdminOperationId, adminOperations, adminRoute } from './adminDocument.js';
import type { AdminHost } from './adminHost.js';
import type { Controls } from './controlsApi.js';
import { endpoints, hasControlsOf } from './endpoints.js';
import { isStreamReply } from './events.js';
import { checkParameters } from './parameters.js';
import { readAdminBody } from './readAdminBody.js';
import type { BytesReply } from './servedDocuments.js';

const noScope = ok(defaultTenantId);

/** How an admin API answers what it serves less than the mock's (the proxy's: no store of its own, one journal). */
export interface AdminLimits {
  /**
   * The error to answer on the route of an operation this server does not have, given the routes it has (`GET
   * /__admin/requests`, ...); default: a 404 like any other.
   */
  readonly lacking?: (method: string, path: string, served: readonly string[]) => ApiError;
}

/**
 * The routes of openapi/admin.yaml (those under `/__admin/` and the public documents): admin key, route, scope,
 * parameters and body are checked in that order, each answering the document's error envelope, as far as the
 * operation's security asks for them; then the operation's endpoint calls the shared controls. The server has the
 * operations whose controls it has: the mock every one, the proxy those of its journal; a 404 lists only those.
 * Admin calls are not journaled.
 */
export function createAdminHandler(host: AdminHost, controls: Partial<Controls>, limits: AdminLimits = {}) {
  const checkAdminKey = adminKeyCheck(host.adminKey);
  const has = (operationId: AdminOperationId): boolean => hasControlsOf(controls, endpoints[operationId]);

  async function answer(
    req: IncomingMessage,
    head: RequestHead,
    method: string,
    path: string,
  ): Promise<Reply | BytesReply | undefined> {
    const found = adminRoute(method, path);
    const access = accessOf(found, path);
    const denied = access.adminKey ? checkAdminKey(req) : undefined;
    if (denied !== undefined) return errorReply(denied);
    if (found.kind === 'not-found') return errorReply(noOperation(path, has));
    if (found.kind !== 'operation') return errorReply(notAllowed(found.allow, method, path));
    if (!has(found.operation.operationId as AdminOperationId))
      return errorReply(limits.lacking?.(method, path, servedRoutes(has)) ?? noOperation(path, has));
    const scope = access.scope && host.scopeOf !== undefined ? await host.scopeOf(req, head) : noScope;
    if (!scope.ok) return errorReply(scope.error);
    const { operation } = found;
    const params = checkParameters(operation, found.params, new URLSearchParams(head.query));
    if (!params.ok) return errorReply(params.error);
    const body = await readAdminBody(req, head, host, operation);
    if (!body.ok) return 'gone' in body ? undefined : errorReply(body.error);
    const endpoint = endpoints[operation.operationId as AdminOperationId];
    // `has` found every control the endpoint uses among `controls`.
    const call = {
      controls: controls as Controls,
      tenant: scope.value,
      params: params.value,
      body: body.value,
    };
    return endpoint.run(call);
  }

  /** A store out of reach, a change it could not write (and rolled back) or a bug: answered as the host says. */
  const failed = (error: unknown): Reply => errorReply(host.failed(error as Error));

  return {
    /** Whether a path outside `/__admin/` is one of the admin document's (the served documents). */
    owns: (method: string, path: string): boolean => adminRoute(method, path).kind !== 'not-found',

    handle: async (
      req: IncomingMessage,
      res: ServerResponse,
      path: string,
      head: RequestHead,
    ): Promise<void> => {
      const method = req.method ?? 'GET';
      const reply = await answer(req, head, method, path).catch(failed);
      if (reply === undefined) res.destroy();
      else if (isStreamReply(reply)) reply.stream(req, res, host.stopping);
      else write(res, reply);
      const status = reply?.status ?? 0;
      host.logger.info({ method, path, status }, `${method} ${path} ${status}`);
    },
  };
}

function write(res: ServerResponse, reply: Reply | BytesReply): void {
  if (res.headersSent || res.destroyed) return;
  if ('bytes' in reply) {
    const length = String(reply.bytes.length);
    res.writeHead(reply.status, ['content-type', reply.contentType, 'content-length', length]);
    res.end(reply.bytes);
  } else if (reply.body !== undefined) {
    send(res, reply);
  } else {
    res.writeHead(reply.status, reply.headers);
    res.end();
  }
}

function notAllowed(allowed: readonly string[], method: string, path: string): ApiError {
  const allow = allowed.join(', ');
  const message = `${method} is not allowed on ${path}; it answers ${allow}`;
  return errorAt('METHOD_NOT_ALLOWED', '/method', message, { allow });
}

/** The admin routes a server has, from the admin document's operations: `GET /__admin/requests`, .... */
const servedRoutes = (has: (operationId: AdminOperationId) => boolean): string[] =>
  adminOperations()
    .filter((o) => has(o.operationId as AdminOperationId))
    .map((o) => `${o.method} ${o.path}`);

function noOperation(path: string, has: (operationId: AdminOperationId) => boolean): ApiError {
  const message = `no admin operation at "${path}"; the admin API has ${servedRoutes(has).join(', ')} (see openapi/admin.yaml)`;
  return errorAt('ROUTE_NOT_FOUND', '/path', message);
}
