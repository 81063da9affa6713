import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiError } from '../errors.js';
import { errorReply } from '../pipeline/answer.js';
import type { Log } from '../runtime/log.js';
import type { MockContext } from '../runtime/mockContext.js';
import { errorAt } from '../validate/diagnostic.js';
import { AnswerMemo } from './answerMemo.js';
import type { Exchange } from './exchange.js';
import { answerFavicon } from './favicon.js';
import { type RequestHead, readHead } from './head.js';
import { internalError } from './internalError.js';
import { send } from './respond.js';
import { mockExchangeSettings, ServiceExchange } from './serviceExchange.js';

/** The admin document's routes: everything under `/__admin/`, and the few paths elsewhere it `owns`. */
export interface AdminHandler {
  /** Whether the admin document has a path outside `/__admin/` (the served OpenAPI documents). */
  owns(method: string, path: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse, path: string, head: RequestHead): Promise<void>;
}

/** Serves a browser page when the path is one (`true`); see src/ui/pages.ts. */
export type PageHandler = (req: IncomingMessage, res: ServerResponse, path: string) => boolean;

/** What an entry point (the mock, the proxy) gives the one dispatcher. */
export interface Entry {
  readonly logger: Log;
  readonly admin: AdminHandler;
  readonly pages?: PageHandler | undefined;
  /** The exchange of a request on the service path: the one exchange, with the entry point's last step. */
  readonly exchange: (req: IncomingMessage, res: ServerResponse, head: RequestHead) => Exchange;
}

/**
 * The one request listener of both servers: a request without a Host header is refused; the browser pages and the
 * favicon (only paths outside /api/user, so the service path never calls them); the admin document's routes
 * (everything under /__admin/ and the few public paths it owns); everything else to the entry point's exchange
 * (src/http/exchange.ts), which journals and logs it. A failure outside the service path is answered 500 and logged.
 */
export function createDispatcher(entry: Entry): (req: IncomingMessage, res: ServerResponse) => void {
  const { admin, pages, exchange } = entry;
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
      exchange(req, res, head).run(hostMissing);
    } catch (error) {
      failed(res, error as Error);
    }
  };
}

/** The mock's request listener: the one dispatcher, with the mock's exchange (`ServiceExchange`). */
export function createApp(
  context: MockContext,
  admin: AdminHandler,
  pages?: PageHandler,
): (req: IncomingMessage, res: ServerResponse) => void {
  const memo = new AnswerMemo();
  const settings = mockExchangeSettings(context);
  return createDispatcher({
    logger: context.logger,
    admin,
    pages,
    exchange: (req, res, head) => new ServiceExchange(context, settings, memo, req, res, head),
  });
}

/** HTTP/1.1 requires a Host header (RFC 9112, section 3.2): a request without one is refused, in the envelope. */
function missingHost(req: IncomingMessage, head: RequestHead): ApiError | undefined {
  if (req.httpVersion !== '1.1' || head.host !== undefined) return undefined;
  const message =
    'the HTTP/1.1 request has no Host header; send one (HTTP clients set it unless told not to)';
  return errorAt('HTTP_MALFORMED', '/headers/host', message);
}
