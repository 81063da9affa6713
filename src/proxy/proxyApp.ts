import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiError } from '../errors.js';
import type { AdminHandler, PageHandler } from '../http/app.js';
import { answerFavicon } from '../http/favicon.js';
import { readHead } from '../http/head.js';
import { send } from '../http/respond.js';
import { errorReply } from '../pipeline/answer.js';
import { type ProxyContext, proxyExchange } from './proxyExchange.js';

/**
 * The proxy's request listener: `/__admin` (the journal of the exchanges) and the browser pages are its own, as
 * on the mock; every other request is judged and forwarded (`proxyExchange`).
 */
export function createProxyApp(
  proxy: ProxyContext,
  admin: AdminHandler,
  pages?: PageHandler,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const head = readHead(req);
    const { path } = head;
    try {
      if (path !== '/api/user' && (answerFavicon(req, res, path) || pages?.(req, res, path) === true)) return;
      if (path === '/__admin' || path.startsWith('/__admin/') || admin.owns(req.method ?? 'GET', path)) {
        admin.handle(req, res, path, head).catch((error: Error) => failed(proxy, res, error));
        return;
      }
      proxyExchange(proxy, req, res, path, head);
    } catch (error) {
      failed(proxy, res, error as Error);
    }
  };
}

function failed(proxy: ProxyContext, res: ServerResponse, error: Error): void {
  proxy.logger.error({ err: error }, 'internal error');
  send(
    res,
    errorReply(
      apiError(
        'INTERNAL_ERROR',
        'the proxy failed internally; this is a bug in user-group-mock, not in the client or the service. Retry, and report it with the log.',
      ),
    ),
  );
}
