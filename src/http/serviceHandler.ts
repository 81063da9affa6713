import type { IncomingMessage } from 'node:http';
import { handle } from '../domain/handlers.js';
import { type ApiError, apiError, errorFromDiagnostics } from '../errors.js';
import type { Operation, OperationId } from '../spec/operations.js';
import type { Diagnostic } from '../spec/types.js';
import { checkRequestBody } from '../validate/contract.js';
import { checkContentEncoding, checkContentType } from '../validate/headers.js';
import { parseJsonBody } from '../validate/jsonText.js';
import { authenticate } from './authenticate.js';
import { type BodyResult, collectBody } from './body.js';
import { type MockContext, runtimeOf } from './context.js';
import { announcesBody, type RequestHead } from './head.js';
import type { KeyOwner } from './keys.js';
import { errorReply, type Reply } from './respond.js';

/** What one request to an operation came to: the reply, and what the journal needs to know. */
export interface Exchange {
  reply: Reply | undefined;
  owner: KeyOwner | undefined;
  /** The body as JSON text when it was JSON (kept as sent), else what was received, as a string. */
  requestText: string | undefined;
  requestBody: unknown;
  diagnostics: readonly Diagnostic[];
}

/**
 * Runs one request to an operation of the document through authentication, limits, body checks and the rules,
 * and calls `finish` once with the outcome. Written with callbacks rather than `await`: after the body has
 * arrived, a request whose answer needs nothing from the disk is answered in the same tick, without the promise
 * hops that otherwise cost more than the rule itself.
 */
export function serveOperation(
  req: IncomingMessage,
  context: MockContext,
  head: RequestHead,
  operation: Operation,
  finish: (exchange: Exchange) => void,
): void {
  const exchange: Exchange = {
    reply: undefined,
    owner: undefined,
    requestText: undefined,
    requestBody: undefined,
    diagnostics: [],
  };
  /** Answers an error; `contract` marks a client mistake against the document (listed by `invalid=true`). */
  const fail = (error: ApiError, contract = true): void => {
    exchange.reply = errorReply(error);
    if (contract && exchange.diagnostics.length === 0) exchange.diagnostics = error.details;
    finish(exchange);
  };
  const auth = authenticate(req, context, head);
  if (!auth.ok) {
    fail(auth.error);
    return;
  }
  const owner = auth.owner;
  exchange.owner = owner;

  const wait = context.rateLimiter?.take(`${owner.tenant}/${owner.environment}`);
  if (wait !== undefined) {
    const message = `more than ${context.rateLimiter?.perMinute} requests in a minute from this API key; wait ${wait} s (Retry-After) and back off`;
    fail(apiError('RATE_LIMITED', message, [], { headers: { 'retry-after': String(wait) } }), false);
    return;
  }

  const refused = refuseBody(head, operation);
  if (refused !== undefined) {
    fail(refused);
    return;
  }
  collectBody(req, head, context.bodyLimit, (read) => guarded(() => received(read)));

  /** The body has arrived: parse, check, then the rule (after a planned fault, if one is due). */
  function received(read: BodyResult): void {
    if (!read.ok) {
      if (read.error === undefined)
        finish(exchange); // the client went away: nobody to answer
      else fail(read.error);
      return;
    }
    const parsed = parseJsonBody(read.bytes);
    if (!parsed.ok) {
      // Not JSON: the journal keeps the start of what arrived, as a string.
      exchange.requestBody = (parsed.text ?? read.bytes.toString('utf8', 0, 4096)).slice(0, 4096);
      const first = parsed.diagnostics[0];
      fail(errorFromDiagnostics(first?.code as ApiError['code'], parsed.diagnostics));
      return;
    }
    exchange.requestText = parsed.text;
    exchange.requestBody = parsed.value;
    const checked = checkRequestBody(operation, parsed.value, parsed.clean);
    if (!checked.ok) {
      exchange.diagnostics = checked.diagnostics;
      const code = checked.diagnostics[0]?.code.startsWith('BODY_')
        ? (checked.diagnostics[0].code as ApiError['code'])
        : 'VALIDATION_FAILED';
      const lead =
        code === 'VALIDATION_FAILED' ? `the request body does not match ${operation.operationId}: ` : '';
      fail(errorFromDiagnostics(code, checked.diagnostics, lead));
      return;
    }
    const fault = runtimeOf(context, owner.tenant).faults.take(operation.operationId);
    if (fault === undefined) {
      apply();
      return;
    }
    const strike = (): void => {
      if (fault.action === 'reset-connection') {
        req.socket.destroy();
        finish(exchange);
        return;
      }
      if (fault.status === null) {
        apply();
        return;
      }
      fail(
        apiError(
          'INJECTED_FAULT',
          `fault injected through /__admin/faults (fault ${fault.id}); a real client retries or reports this`,
          [],
          { status: fault.status },
        ),
        false,
      );
    };
    if (fault.delay_ms > 0) setTimeout(() => guarded(strike), fault.delay_ms);
    else strike();
  }

  /** The rule, then the store: answered at once when nothing is waiting for the disk. */
  function apply(): void {
    const tenant = context.store.world.tenants.get(owner.tenant);
    if (tenant === undefined) {
      // The tenant was removed while this request was under way: its key is no longer known.
      const message =
        'the tenant of this API key was removed while the request was under way; take a new tenant with POST /__admin/tenants';
      fail(apiError('AUTH_UNKNOWN_KEY', message, [], { headers: { 'www-authenticate': 'Token' } }), false);
      return;
    }
    const outcome = handle(
      operation.operationId as OperationId,
      context.store.world,
      { tenant, environment: owner.environment },
      exchange.requestBody,
      context.ids,
    );
    if (!outcome.ok) {
      fail(outcome.error, false);
      return;
    }
    const succeed = (): void => {
      exchange.reply =
        outcome.notice === undefined
          ? { status: 200, body: outcome.body }
          : { status: 200, body: outcome.body, headers: { 'x-mock-notice': outcome.notice } };
      finish(exchange);
    };
    // A read must not answer with a change that is not durable yet: it waits for the store to settle.
    if (outcome.changes.length === 0 && context.store.settledNow) {
      succeed();
      return;
    }
    // No changes: commit resolves once everything already applied is durable.
    context.store.commit(outcome.changes).then(
      () => guarded(succeed),
      (error: Error) => {
        context.logger.error({ err: error }, 'write failed');
        guarded(() => fail(apiError('INTERNAL_ERROR', `${error.message} Retry the request.`), false));
      },
    );
  }

  /** A bug past the first tick would otherwise escape to the event loop: it answers 500 instead. */
  function guarded(step: () => void): void {
    try {
      step();
    } catch (error) {
      exchange.reply = errorReply(internalError(context, error as Error));
      finish(exchange);
    }
  }
}

/** The answer to a bug in the mock itself, logged with its stack. */
export function internalError(context: MockContext, error: Error): ApiError {
  context.logger.error({ err: error }, 'internal error');
  return apiError(
    'INTERNAL_ERROR',
    'the mock failed internally; this is a bug in user-group-mock, not in the client. Retry, and report it with the server log.',
  );
}

/** Why the body cannot be read as JSON from its headers alone (none announced, an encoding, a media type). */
function refuseBody(head: RequestHead, operation: Operation): ApiError | undefined {
  if (!announcesBody(head)) {
    const message = `${operation.method} /api/user arrived without a body. Send the JSON body with a Content-Length header (fetch cannot send a GET body: use undici.request or node:http)`;
    return errorFromDiagnostics('BODY_MISSING', [{ code: 'BODY_MISSING', path: '/body', message }]);
  }
  const header = checkContentEncoding(head.contentEncoding) ?? checkContentType(head.contentType);
  return header === undefined ? undefined : errorFromDiagnostics('UNSUPPORTED_MEDIA_TYPE', [header]);
}
