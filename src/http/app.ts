import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiError } from '../errors.js';
import { errorReply } from '../pipeline/answer.js';
import { findOperation } from '../pipeline/findOperation.js';
import type { Log } from '../runtime/log.js';
import type { MockContext } from '../runtime/mockContext.js';
import { errorAt } from '../validate/diagnostic.js';
import { AnswerMemo } from './answerMemo.js';
import { answerFavicon } from './favicon.js';
import { type RequestHead, readHead } from './head.js';
import { internalError } from './internalError.js';
import { send } from './respond.js';
import { ServiceExchange } from './serviceExchange.js';

/** The admin document's routes: everything under `/__admin/`, and the few paths elsewhere it `owns`. */
export interface AdminHandler {
  /** Whether the admin document has a path outside `/__admin/` (the served OpenAPI documents). */
  owns(method: string, path: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse, path: string, head: RequestHead): Promise<void>;
}

/** Serves a browser page when the path is one (`true`); see src/ui/pages.ts. */
export type PageHandler = (req: IncomingMessage, res: ServerResponse, path: string) => boolean;

/**
 * The last step of an entry point on its service path: the mock serves the request on its store, the proxy forwards
 * it. `refused` is what the dispatcher refused it for already (no Host header): answered and journaled as such.
 */
export type ServicePath = (
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  head: RequestHead,
  refused: ApiError | undefined,
) => void;

/** What an entry point (the mock, the proxy) gives the one dispatcher. */
export interface Entry {
  readonly logger: Log;
  readonly admin: AdminHandler;
  readonly pages?: PageHandler | undefined;
  readonly service: ServicePath;
}

/**
 * The one request listener of both servers: a request without a Host header is refused; the browser pages and the
 * favicon (only paths outside /api/user, so the service path never calls them); the admin document's routes
 * (everything under /__admin/ and the few public paths it owns); everything else to the entry point's service
 * path, which journals and logs it. A failure outside the service path is answered 500 and logged.
 */
export function createDispatcher(entry: Entry): (req: IncomingMessage, res: ServerResponse) => void {
  const { admin, pages, service } = entry;
  const failed = (res: ServerResponse, error: Error): void => {
    if (!res.headersSent) send(res, errorReply(internalError(entry, error)));
  };
  return (req, res) => {
    const head = readHead(req);
    const { path } = head;
    const hostMissing = missingHost(req, head);
    try {
      if (hostMissing === undefined && path !== '/api/user') {
        if (answerFavicon(req, res, path) || pages?.(req, res, path) === true) return;
        if (path === '/__admin' || path.startsWith('/__admin/') || admin.owns(req.method ?? 'GET', path)) {
          admin.handle(req, res, path, head).catch((error: Error) => failed(res, error));
          return;
        }
      }
      service(req, res, path, head, hostMissing);
    } catch (error) {
      failed(res, error as Error);
    }
  };
}

/** The mock's request listener: the one dispatcher, with the mock's service path (`ServiceExchange`). */
export function createApp(
  context: MockContext,
  admin: AdminHandler,
  pages?: PageHandler,
): (req: IncomingMessage, res: ServerResponse) => void {
  const memo = new AnswerMemo();
  const service: ServicePath = (req, res, _path, head, refused) => {
    const exchange = new ServiceExchange(context, memo, req, res, req.method ?? 'GET', head);
    try {
      if (refused !== undefined) {
        exchange.fail(refused);
        return;
      }
      const routed = findOperation(exchange);
      if ('code' in routed) exchange.fail(routed);
      else routed.serve();
    } catch (error) {
      exchange.crash(error as Error);
    }
  };
  return createDispatcher({ logger: context.logger, admin, pages, service });
}

/** HTTP/1.1 requires a Host header (RFC 9112, section 3.2): a request without one is refused, in the envelope. */
function missingHost(req: IncomingMessage, head: RequestHead): ApiError | undefined {
  if (req.httpVersion !== '1.1' || head.host !== undefined) return undefined;
  const message =
    'the HTTP/1.1 request has no Host header; send one (HTTP clients set it unless told not to)';
  return errorAt('HTTP_MALFORMED', '/headers/host', message);
}
