import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ApiError, apiError, errorFromDiagnostics } from '../errors.js';
import { type OperationId, operations } from '../spec/operations.js';
import type { Diagnostic } from '../spec/types.js';
import { route } from '../validate/contract.js';
import { routeDiagnostic } from '../validate/routes.js';
import { type MockContext, runtimeOf } from './context.js';
import { type RequestHead, readHead } from './head.js';
import { errorReply, send } from './respond.js';
import { type Exchange, internalError, serveOperation } from './serviceHandler.js';

export type AdminHandler = (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void>;

/** The request listener: routes by the document, serves, journals and logs one line per request. */
export function createApp(
  context: MockContext,
  admin: AdminHandler,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const logging = context.logger.isLevelEnabled('info');
    const started = logging ? performance.now() : 0;
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const head = readHead(req);
    const hostMissing = missingHost(req, head);
    if (hostMissing === undefined && (path === '/__admin' || path.startsWith('/__admin/'))) {
      admin(req, res, path).catch((error: Error) => send(res, errorReply(internalError(context, error))));
      return;
    }
    const method = req.method ?? 'GET';
    const found = route(method, path);
    const operationId = found.kind === 'operation' ? (found.operation.operationId as OperationId) : null;
    const complete = (exchange: Exchange): void => {
      const sent = exchange.reply === undefined ? undefined : send(res, exchange.reply);
      if (exchange.reply === undefined && !res.headersSent) res.destroy();
      const status = exchange.reply?.status ?? 0;
      runtimeOf(context, exchange.owner?.tenant ?? 'default').journal.record({
        method,
        path,
        operationId,
        keyEnvironment: exchange.owner?.environment ?? null,
        status,
        requestText: exchange.requestText,
        requestBody: exchange.requestText === undefined ? (exchange.requestBody ?? null) : null,
        responseText: sent ?? null,
        diagnostics: exchange.diagnostics,
      });
      if (logging) {
        const ms = Math.round((performance.now() - started) * 10) / 10;
        const codes = exchange.diagnostics.map((d) => d.code);
        context.logger.info(
          { method, path, status, ms, ...(codes.length ? { codes } : {}) },
          `${method} ${path} ${status} ${ms}ms`,
        );
      }
    };
    const answer = (error: ApiError, diagnostics: readonly Diagnostic[]): void =>
      complete({
        reply: errorReply(error),
        owner: undefined,
        requestText: undefined,
        requestBody: undefined,
        diagnostics,
      });
    try {
      if (hostMissing !== undefined) {
        answer(hostMissing, hostMissing.details);
      } else if (found.kind === 'operation') {
        serveOperation(req, context, head, found.operation, complete);
      } else {
        const diagnostic = routeDiagnostic(found, method, path, operations());
        const code = found.kind === 'method-not-allowed' ? 'METHOD_NOT_ALLOWED' : 'ROUTE_NOT_FOUND';
        const error = errorFromDiagnostics(code, [diagnostic]);
        const headers = found.kind === 'method-not-allowed' ? { allow: found.allow.join(', ') } : undefined;
        answer(headers ? { ...error, headers } : error, [diagnostic]);
      }
    } catch (error) {
      answer(internalError(context, error as Error), []);
    }
  };
}

/** HTTP/1.1 requires a Host header (RFC 9112, section 3.2): a request without one is refused, in the envelope. */
function missingHost(req: IncomingMessage, head: RequestHead): ApiError | undefined {
  if (req.httpVersion !== '1.1' || head.host !== undefined) return undefined;
  const message =
    'the HTTP/1.1 request has no Host header; send one (HTTP clients set it unless told not to)';
  return apiError('HTTP_MALFORMED', message, [{ code: 'HTTP_MALFORMED', path: '/headers/host', message }]);
}
