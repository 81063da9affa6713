import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { handle } from '../domain/handlers.js';
import { type ApiError, apiError, errorFromDiagnostics } from '../errors.js';
import type { Operation, OperationId } from '../spec/operations.js';
import type { Diagnostic } from '../spec/types.js';
import { checkRequestBody } from '../validate/contract.js';
import { checkContentEncoding, checkContentType } from '../validate/headers.js';
import { parseJsonBody } from '../validate/jsonText.js';
import { authenticate } from './authenticate.js';
import { announcesBody, readBody } from './body.js';
import { type MockContext, runtimeOf } from './context.js';
import type { KeyOwner } from './keys.js';
import { errorReply, type Reply } from './respond.js';

/** What one request to an operation came to: the reply, and what the journal needs to know. */
export interface Exchange {
  reply: Reply | undefined;
  owner: KeyOwner | undefined;
  requestBody: unknown;
  diagnostics: readonly Diagnostic[];
}

/** Runs one request to an operation of the document through authentication, limits, body checks and the rules. */
export async function serveOperation(
  req: IncomingMessage,
  context: MockContext,
  operation: Operation,
): Promise<Exchange> {
  const exchange: Exchange = { reply: undefined, owner: undefined, requestBody: undefined, diagnostics: [] };
  /** Answers an error; `contract` marks a client mistake against the document (listed by `invalid=true`). */
  const fail = (error: ApiError, contract = true): Exchange => {
    exchange.reply = errorReply(error);
    if (contract && exchange.diagnostics.length === 0) exchange.diagnostics = error.details;
    return exchange;
  };
  const auth = authenticate(req, context);
  if (!auth.ok) return fail(auth.error);
  const owner = auth.owner;
  exchange.owner = owner;

  const wait = context.rateLimiter?.take(`${owner.tenant}/${owner.environment}`);
  if (wait !== undefined) {
    const message = `more than ${context.rateLimiter?.perMinute} requests in a minute from this API key; wait ${wait} s (Retry-After) and back off`;
    return fail(apiError('RATE_LIMITED', message, [], { headers: { 'retry-after': String(wait) } }), false);
  }

  const body = await readJson(req, context, operation);
  if (!body.ok) {
    exchange.requestBody = body.raw;
    if (body.error === undefined) return exchange;
    return fail(body.error);
  }
  exchange.requestBody = body.value;
  const checked = checkRequestBody(operation, body.value);
  if (!checked.ok) {
    exchange.diagnostics = checked.diagnostics;
    const code = checked.diagnostics[0]?.code.startsWith('BODY_')
      ? (checked.diagnostics[0].code as ApiError['code'])
      : 'VALIDATION_FAILED';
    const lead =
      code === 'VALIDATION_FAILED' ? `the request body does not match ${operation.operationId}: ` : '';
    return fail(errorFromDiagnostics(code, checked.diagnostics, lead));
  }

  const fault = runtimeOf(context, owner.tenant).faults.take(operation.operationId);
  if (fault !== undefined) {
    if (fault.delay_ms > 0) await sleep(fault.delay_ms);
    if (fault.action === 'reset-connection') {
      req.socket.destroy();
      return exchange;
    }
    if (fault.status !== null) {
      return fail(
        apiError(
          'INJECTED_FAULT',
          `fault injected through /__admin/faults (fault ${fault.id}); a real client retries or reports this`,
          [],
          { status: fault.status },
        ),
        false,
      );
    }
  }

  const tenant = context.store.world.tenants.get(owner.tenant);
  if (tenant === undefined) {
    // The tenant was removed while this request was under way: its key is no longer known.
    const message =
      'the tenant of this API key was removed while the request was under way; take a new tenant with POST /__admin/tenants';
    return fail(
      apiError('AUTH_UNKNOWN_KEY', message, [], { headers: { 'www-authenticate': 'Token' } }),
      false,
    );
  }
  const outcome = handle(
    operation.operationId as OperationId,
    context.store.world,
    { tenant, environment: owner.environment },
    body.value,
    context.ids,
  );
  if (!outcome.ok) return fail(outcome.error, false);
  try {
    await context.store.commit(outcome.changes);
  } catch (error) {
    context.logger.error({ err: error }, 'write failed');
    return fail(apiError('INTERNAL_ERROR', `${(error as Error).message} Retry the request.`), false);
  }
  exchange.reply = {
    status: 200,
    body: outcome.body,
    ...(outcome.notice ? { headers: { 'x-mock-notice': outcome.notice } } : {}),
  };
  return exchange;
}

type JsonRead = { ok: true; value: unknown } | { ok: false; error: ApiError | undefined; raw?: unknown };

async function readJson(req: IncomingMessage, context: MockContext, operation: Operation): Promise<JsonRead> {
  const failWith = (code: ApiError['code'], diagnostic: Diagnostic | undefined): JsonRead => ({
    ok: false,
    error: diagnostic === undefined ? undefined : errorFromDiagnostics(code, [diagnostic]),
  });
  if (!announcesBody(req)) {
    const message = `${operation.method} /api/user arrived without a body. Send the JSON body with a Content-Length header (fetch cannot send a GET body: use undici.request or node:http)`;
    return failWith('BODY_MISSING', { code: 'BODY_MISSING', path: '/body', message });
  }
  const encoding = checkContentEncoding(req.headers['content-encoding']);
  if (encoding !== undefined) return failWith('UNSUPPORTED_MEDIA_TYPE', encoding);
  const contentType = checkContentType(req.headers['content-type']);
  if (contentType !== undefined) return failWith('UNSUPPORTED_MEDIA_TYPE', contentType);
  const read = await readBody(req, context.bodyLimit);
  if (!read.ok) return { ok: false, error: read.error };
  const parsed = parseJsonBody(read.bytes);
  if (!parsed.ok) {
    const first = parsed.diagnostics[0];
    return {
      ok: false,
      error: errorFromDiagnostics(first?.code as ApiError['code'], parsed.diagnostics),
      raw: read.bytes.toString('utf8').slice(0, 4096),
    };
  }
  return { ok: true, value: parsed.value };
}
