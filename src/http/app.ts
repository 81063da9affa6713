import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ApiError, apiError, errorFromDiagnostics } from '../errors.js';
import { type OperationId, operations } from '../spec/operations.js';
import { route } from '../validate/contract.js';
import { routeDiagnostic } from '../validate/routes.js';
import { type MockContext, runtimeOf } from './context.js';
import { errorReply, send } from './respond.js';
import { type Exchange, serveOperation } from './serviceHandler.js';

export type AdminHandler = (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void>;

/** The request listener: routes by the document, serves, journals and logs one line per request. */
export function createApp(
  context: MockContext,
  admin: AdminHandler,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const started = performance.now();
    const path = (req.url ?? '/').split('?')[0] as string;
    const hostMissing = missingHost(req);
    if (hostMissing === undefined && (path === '/__admin' || path.startsWith('/__admin/'))) {
      admin(req, res, path).catch((error: Error) => internalError(res, context, error));
      return;
    }
    const method = req.method ?? 'GET';
    const found = route(method, path);
    let work: Promise<Exchange>;
    if (hostMissing !== undefined) {
      work = Promise.resolve({
        reply: errorReply(hostMissing),
        owner: undefined,
        requestBody: undefined,
        diagnostics: hostMissing.details,
      });
    } else if (found.kind === 'operation') {
      work = serveOperation(req, context, found.operation);
    } else {
      const diagnostic = routeDiagnostic(found, method, path, operations());
      const code = found.kind === 'method-not-allowed' ? 'METHOD_NOT_ALLOWED' : 'ROUTE_NOT_FOUND';
      const error = errorFromDiagnostics(code, [diagnostic]);
      const headers = found.kind === 'method-not-allowed' ? { allow: found.allow.join(', ') } : undefined;
      work = Promise.resolve({
        reply: errorReply(headers ? { ...error, headers } : error),
        owner: undefined,
        requestBody: undefined,
        diagnostics: [diagnostic],
      });
    }
    work
      .then((exchange) => {
        const sent = exchange.reply === undefined ? undefined : send(res, exchange.reply);
        if (exchange.reply === undefined && !res.headersSent) res.destroy();
        const status = exchange.reply?.status ?? 0;
        const operationId = found.kind === 'operation' ? (found.operation.operationId as OperationId) : null;
        runtimeOf(context, exchange.owner?.tenant ?? 'default').journal.record({
          method,
          path,
          operationId,
          keyEnvironment: exchange.owner?.environment ?? null,
          status,
          requestBody: exchange.requestBody ?? null,
          responseText: sent ?? null,
          diagnostics: [...exchange.diagnostics],
        });
        if (context.logger.isLevelEnabled('info')) {
          const ms = Math.round((performance.now() - started) * 10) / 10;
          const codes = exchange.diagnostics.map((d) => d.code);
          context.logger.info(
            { method, path, status, ms, ...(codes.length ? { codes } : {}) },
            `${method} ${path} ${status} ${ms}ms`,
          );
        }
      })
      .catch((error: Error) => internalError(res, context, error));
  };
}

/** HTTP/1.1 requires a Host header (RFC 9112, section 3.2): a request without one is refused, in the envelope. */
function missingHost(req: IncomingMessage): ApiError | undefined {
  if (req.httpVersion !== '1.1' || req.headers.host !== undefined) return undefined;
  const message =
    'the HTTP/1.1 request has no Host header; send one (HTTP clients set it unless told not to)';
  return apiError('HTTP_MALFORMED', message, [{ code: 'HTTP_MALFORMED', path: '/headers/host', message }]);
}

function internalError(res: ServerResponse, context: MockContext, error: Error): void {
  context.logger.error({ err: error }, 'internal error');
  send(
    res,
    errorReply(
      apiError(
        'INTERNAL_ERROR',
        'the mock failed internally; this is a bug in user-group-mock, not in the client. Retry, and report it with the server log.',
      ),
    ),
  );
}
