import type { IncomingMessage, ServerResponse } from 'node:http';
import { handle } from '../domain/handlers.js';
import type { Outcome } from '../domain/userGroups.js';
import { type ApiError, apiError, errorFromDiagnostics } from '../errors.js';
import type { Fault } from '../runtime/faults.js';
import type { KeyOwner } from '../runtime/keyRing.js';
import { type MockContext, runtimeOf, type TenantRuntime } from '../runtime/mockContext.js';
import type { Operation, OperationId } from '../spec/operations.js';
import type { Diagnostic } from '../spec/types.js';
import { checkRequestBody } from '../validate/contract.js';
import { checkContentEncoding, checkContentType } from '../validate/headers.js';
import { parseJsonBody } from '../validate/jsonText.js';
import { authenticate } from './authenticate.js';
import { type BodyResult, type BodySink, collectBody } from './body.js';
import { announcesBody, type RequestHead } from './head.js';
import { errorReply, type Reply, send } from './respond.js';

/**
 * One request to the service, from routing to the journal: runs an operation of the document through
 * authentication, limits, body checks and the rules, then answers, journals and logs it once (`complete`).
 *
 * Written as a class with callbacks rather than closures and `await`: after the body has arrived, a request whose
 * answer needs nothing from the disk is answered in the same tick, and a request allocates one object for its
 * whole course instead of a closure per step.
 */
export class ServiceExchange implements BodySink {
  reply: Reply | undefined = undefined;
  owner: KeyOwner | undefined = undefined;
  /** The journal and faults of the key's tenant, once the key is known (else the default tenant's journal). */
  runtime: TenantRuntime | undefined = undefined;
  /** The body as JSON text when it was JSON (kept as sent), else what was received, as a string. */
  requestText: string | undefined = undefined;
  requestBody: unknown = undefined;
  diagnostics: readonly Diagnostic[] = [];
  /** Legal but risky values of the body (accepted; said in `X-Mock-Notice` and the journal). */
  warnings: readonly Diagnostic[] = noWarnings;
  readonly #started: number;

  constructor(
    private readonly context: MockContext,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly method: string,
    private readonly path: string,
    private readonly operation: Operation | undefined,
  ) {
    this.#started = context.logger.isLevelEnabled('info') ? performance.now() : -1;
  }

  /** Serves the operation: decided from the headers first, then from the body once it has arrived. */
  serve(head: RequestHead): void {
    const { context, operation } = this;
    if (operation === undefined) throw new Error('serve() needs an operation');
    const auth = authenticate(this.req, context, head);
    if (!auth.ok) {
      this.fail(auth.error);
      return;
    }
    const owner = auth.owner;
    this.owner = owner;
    this.runtime = runtimeOf(context, owner.tenant);
    const wait = context.rateLimiter?.take(`${owner.tenant}/${owner.environment}`);
    if (wait !== undefined) {
      const message = `more than ${context.rateLimiter?.perMinute} requests in a minute from this API key; wait ${wait} s (Retry-After) and back off`;
      this.fail(apiError('RATE_LIMITED', message, [], { headers: { 'retry-after': String(wait) } }), false);
      return;
    }
    const refused = refuseBody(head, operation);
    if (refused !== undefined) {
      this.fail(refused);
      return;
    }
    collectBody(this.req, head, context.bodyLimit, this);
  }

  /** Answers an error; `contract` marks a client mistake against the document (listed by `invalid=true`). */
  fail(error: ApiError, contract = true): void {
    this.reply = errorReply(error);
    if (contract && this.diagnostics.length === 0) this.diagnostics = error.details;
    this.complete();
  }

  /** Answers an error found before any operation ran (route, Host), with the diagnostics that name it. */
  answer(error: ApiError, diagnostics: readonly Diagnostic[]): void {
    this.diagnostics = diagnostics;
    this.reply = errorReply(error);
    this.complete();
  }

  /** A bug in the mock: answered 500 (when an answer can still be sent) and logged with its stack. */
  crash(error: Error): void {
    this.reply = errorReply(internalError(this.context, error));
    this.complete();
  }

  bodyArrived(read: BodyResult): void {
    try {
      this.#received(read);
    } catch (error) {
      this.crash(error as Error);
    }
  }

  /** The body has arrived: parse, check, then the rule (after a planned fault, if one is due). */
  #received(read: BodyResult): void {
    if (!read.ok) {
      if (read.error === undefined)
        this.complete(); // the client went away: nobody to answer
      else this.fail(read.error);
      return;
    }
    const operation = this.operation as Operation;
    const parsed = parseJsonBody(read.bytes);
    if (!parsed.ok) {
      // Not JSON: the journal keeps the start of what arrived, as a string.
      this.requestBody = (parsed.text ?? read.bytes.toString('utf8', 0, 4096)).slice(0, 4096);
      const first = parsed.diagnostics[0];
      this.fail(errorFromDiagnostics(first?.code as ApiError['code'], parsed.diagnostics));
      return;
    }
    this.requestText = parsed.text;
    this.requestBody = parsed.value;
    if (parsed.warnings !== undefined) this.warnings = parsed.warnings;
    const checked = checkRequestBody(operation, parsed.value, parsed.clean);
    if (!checked.ok) {
      this.diagnostics = checked.diagnostics;
      const code = checked.diagnostics[0]?.code.startsWith('BODY_')
        ? (checked.diagnostics[0].code as ApiError['code'])
        : 'VALIDATION_FAILED';
      const lead =
        code === 'VALIDATION_FAILED' ? `the request body does not match ${operation.operationId}: ` : '';
      this.fail(errorFromDiagnostics(code, checked.diagnostics, lead));
      return;
    }
    const fault = (this.runtime as TenantRuntime).faults.take(operation.operationId);
    if (fault === undefined) this.#apply();
    else if (fault.delay_ms > 0) setTimeout(() => this.#guarded(() => this.#strike(fault)), fault.delay_ms);
    else this.#strike(fault);
  }

  /** A planned fault: the connection lost, an error status, or (a delay alone) the normal answer. */
  #strike(fault: Fault): void {
    if (fault.action === 'reset-connection') {
      this.req.socket.destroy();
      this.complete();
    } else if (fault.status === null) {
      this.#apply();
    } else {
      this.fail(
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

  /** The rule, then the store: answered at once when nothing is waiting for the disk. */
  #apply(): void {
    const { context } = this;
    const owner = this.owner as KeyOwner;
    const tenant = context.store.world.tenants.get(owner.tenant);
    if (tenant === undefined) {
      // The tenant was removed while this request was under way: its key is no longer known.
      const message =
        'the tenant of this API key was removed while the request was under way; take a new tenant with POST /__admin/tenants';
      this.fail(
        apiError('AUTH_UNKNOWN_KEY', message, [], { headers: { 'www-authenticate': 'Token' } }),
        false,
      );
      return;
    }
    const outcome = handle(
      (this.operation as Operation).operationId as OperationId,
      context.store.world,
      { tenant, environment: owner.environment },
      this.requestBody,
      context.ids,
    );
    if (!outcome.ok) {
      this.fail(outcome.error, false);
      return;
    }
    // A read must not answer with a change that is not durable yet: it waits for the store to settle.
    if (outcome.changes.length === 0 && context.store.settledNow) {
      this.#succeed(outcome);
      return;
    }
    // No changes: commit resolves once everything already applied is durable.
    context.store.commit(outcome.changes).then(
      () => this.#guarded(() => this.#succeed(outcome)),
      (error: Error) => {
        context.logger.error({ err: error }, 'write failed');
        this.#guarded(() =>
          this.fail(apiError('INTERNAL_ERROR', `${error.message} Retry the request.`), false),
        );
      },
    );
  }

  #succeed(outcome: Outcome<unknown> & { ok: true }): void {
    const notices =
      this.warnings.length === 0 ? outcome.notice : [outcome.notice, ...this.warnings.map((w) => w.message)];
    this.reply =
      notices === undefined
        ? { status: 200, body: outcome.body }
        : {
            status: 200,
            body: outcome.body,
            headers: {
              'x-mock-notice': typeof notices === 'string' ? notices : notices.filter(Boolean).join(' | '),
            },
          };
    this.complete();
  }

  /** A step past the first tick: a bug there would otherwise escape to the event loop; it answers 500 instead. */
  #guarded(step: () => void): void {
    try {
      step();
    } catch (error) {
      this.crash(error as Error);
    }
  }

  /** Sends the reply (or drops the connection when there is none), then journals and logs the request. */
  complete(): void {
    const { context, reply, res, method, path } = this;
    const sent = reply === undefined ? undefined : send(res, reply);
    if (reply === undefined && !res.headersSent) res.destroy();
    const status = reply?.status ?? 0;
    const owner = this.owner;
    (this.runtime ?? runtimeOf(context, 'default')).journal.record({
      method,
      path,
      operationId: (this.operation?.operationId as OperationId | undefined) ?? null,
      keyEnvironment: owner?.environment ?? null,
      status,
      requestText: this.requestText,
      requestBody: this.requestText === undefined ? (this.requestBody ?? null) : null,
      responseText: sent ?? null,
      diagnostics: this.diagnostics,
      warnings: this.warnings,
    });
    if (this.#started !== -1) {
      const ms = Math.round((performance.now() - this.#started) * 10) / 10;
      const codes = this.diagnostics.map((d) => d.code);
      context.logger.info(
        { method, path, status, ms, ...(codes.length ? { codes } : {}) },
        `${method} ${path} ${status} ${ms}ms`,
      );
    }
  }
}

const noWarnings: readonly Diagnostic[] = [];

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
