import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiError } from '../errors.js';
import { errorReply } from '../pipeline/answer.js';
import { findOperation } from '../pipeline/findOperation.js';
import type { MockContext } from '../runtime/mockContext.js';
import { errorAt } from '../validate/diagnostic.js';
import { AnswerMemo } from './answerMemo.js';
import { answerFavicon } from './favicon.js';
import { type RequestHead, readHead } from './head.js';
import { send } from './respond.js';
import { internalError, ServiceExchange } from './serviceExchange.js';

/** The admin document's routes: everything under `/__admin/`, and the few paths elsewhere it `owns`. */
export interface AdminHandler {
  /** Whether the admin document has a path outside `/__admin/` (the served OpenAPI documents). */
  owns(method: string, path: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse, path: string, head: RequestHead): Promise<void>;
}

/** Serves a browser page when the path is one (`true`); see src/ui/pages.ts. */
export type PageHandler = (req: IncomingMessage, res: ServerResponse, path: string) => boolean;

/** The request listener: routes by the document, serves, journals and logs one line per request. */
export function createApp(
  context: MockContext,
  admin: AdminHandler,
  pages?: PageHandler,
): (req: IncomingMessage, res: ServerResponse) => void {
  const toAdmin = (req: IncomingMessage, res: ServerResponse, path: string, head: RequestHead): void => {
    admin
      .handle(req, res, path, head)
      .catch((error: Error) => send(res, errorReply(internalError(context, error))));
  };
  const memo = new AnswerMemo();
  return (req, res) => {
    const head = readHead(req);
    const { path } = head;
    const hostMissing = missingHost(req, head);
    // The browser pages (not journaled): only paths outside /api/user, so the service path never calls this.
    if (
      path !== '/api/user' &&
      hostMissing === undefined &&
      (answerFavicon(req, res, path) || pages?.(req, res, path) === true)
    )
      return;
    if (hostMissing === undefined && (path === '/__admin' || path.startsWith('/__admin/'))) {
      toAdmin(req, res, path, head);
      return;
    }
    const method = req.method ?? 'GET';
    const exchange = new ServiceExchange(context, memo, req, res, method, head);
    try {
      if (hostMissing !== undefined) {
        exchange.fail(hostMissing);
        return;
      }
      const routed = findOperation(exchange);
      if (!('code' in routed)) routed.serve();
      // A path the service does not have may be one of the admin document's public ones (/openapi.json).
      else if (routed.code === 'ROUTE_NOT_FOUND' && admin.owns(method, path)) toAdmin(req, res, path, head);
      else exchange.fail(routed);
    } catch (error) {
      exchange.crash(error as Error);
    }
  };
}

/** HTTP/1.1 requires a Host header (RFC 9112, section 3.2): a request without one is refused, in the envelope. */
function missingHost(req: IncomingMessage, head: RequestHead): ApiError | undefined {
  if (req.httpVersion !== '1.1' || head.host !== undefined) return undefined;
  const message =
    'the HTTP/1.1 request has no Host header; send one (HTTP clients set it unless told not to)';
  return errorAt('HTTP_MALFORMED', '/headers/host', message);
}
