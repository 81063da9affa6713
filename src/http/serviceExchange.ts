import type { IncomingMessage, ServerResponse } from 'node:http';
import { defaultTenantId, type Group } from '../domain/model.js';
import { type Decision, rotatedTokenNotFound } from '../domain/userGroups.js';
import { type ApiError, apiError } from '../errors.js';
import { answer, errorReply, type Reply } from '../pipeline/answer.js';
import { sentKey } from '../pipeline/authenticate.js';
import { Pipeline } from '../pipeline/pipeline.js';
import {
  isOwned,
  noWarnings,
  type Owned,
  PipelineRequest,
  type Routed,
} from '../pipeline/pipelineRequest.js';
import type { Result } from '../result.js';
import type { KeyOwner } from '../runtime/keyRing.js';
import { elapsedMs, logExchange } from '../runtime/log.js';
import { type MockContext, runtimeOf, type TenantRuntime } from '../runtime/mockContext.js';
import type { OperationId } from '../spec/operations.js';
import type { Diagnostic } from '../spec/types.js';
import type { Fault } from '../store/faults.js';
import type { JournalRecord } from '../store/journal.js';
import { keyMatchedBy } from '../store/requestHeaders.js';
import { StoreUnavailableError, StoreWriteError } from '../store/store.js';
import type { AnswerMemo } from './answerMemo.js';
import { type BodyResult, type BodySink, collectBody } from './collectBody.js';
import { authenticateOnConnection, resolveUnknownKey } from './connectionKeys.js';
import type { RequestHead } from './head.js';
import { internalError } from './internalError.js';
import { bodyNotKept, readRefusedBody } from './refusedBody.js';
import { type Payload, payloadOf, send } from './respond.js';

/** The mock's way: every step, the key remembered per connection in front of `authenticate` (decision 5). */
const mockWay = new Pipeline<ServiceExchange, MockContext>({
  authenticate: (exchange, context) => authenticateOnConnection(exchange, exchange.req.socket, context),
});

/**
 * The HTTP adapter of the request pipeline (src/pipeline) for the service: one request, from routing to the
 * journal. It is the pipeline's request record itself, runs its two stages (`mockWay`: the header stage at once,
 * the body stage once the body has arrived), has the store serve the operation, and answers, journals and logs the
 * request once (`complete`).
 *
 * Written as a class with callbacks rather than closures and `await`: after the body has arrived, a request whose
 * answer needs nothing from the disk is answered in the same tick, and a request allocates one object for its
 * whole course instead of a closure per step (decision 3). Once `Owned` (routed, its key known), it is also the
 * store's `ServiceCall`.
 */
export class ServiceExchange extends PipelineRequest implements BodySink {
  reply: Reply | undefined = undefined;
  /** The reply's body already serialised (an unchanged group's answer), else undefined. */
  payload: Payload | undefined = undefined;
  /** The journal and faults of the key's tenant, once the key is known (else the default tenant's journal). */
  runtime: TenantRuntime | undefined = undefined;
  /** What the client got wrong against the document (listed by the journal's `invalid=true`). */
  diagnostics: readonly Diagnostic[] = noWarnings;
  /** Whether the body has been read (or reading it has begun): a refusal before that reads it first. */
  #bodyRead = false;
  /** Why the body the request announced is not in the journal, if it is not. */
  #bodyNotKept: string | undefined = undefined;
  /** The journal entry of the answer prepared before the store wrote it with its change (PostgreSQL). */
  #prepared: JournalRecord | undefined = undefined;
  readonly #started: number;
  /** The owner of the key a refused request carried, worked out once (null until then). */
  #refusedOwner: KeyOwner | undefined | null = null;

  constructor(
    private readonly context: MockContext,
    private readonly memo: AnswerMemo,
    readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    method: string,
    head: RequestHead,
  ) {
    super(method, head.path, head);
    this.#started = performance.now();
  }

  /** Serves the routed operation: the header stage first, then the body stage once the body has arrived. */
  serve(this: Routed<ServiceExchange>): void {
    const { context } = this;
    const refused = mockWay.head(this, context);
    if (refused?.code === 'AUTH_UNKNOWN_KEY' && this.owner === undefined) {
      this.#lookUpKey(refused);
      return;
    }
    if (this.owner !== undefined) this.runtime = runtimeOf(context, this.owner.tenant);
    // With a key ring, a request that passed `authenticate` has its owner.
    if (refused === undefined && isOwned(this)) {
      this.#bodyRead = true;
      collectBody(this.req, this.contentLength, context.bodyLimit, this);
    } else
      this.fail(
        refused ?? internalError(context, new Error('a request passed authenticate without an owner')),
      );
  }

  /**
   * A key the key ring does not know: the store is asked before the key is refused (`resolveUnknownKey`, as the
   * admin API does); a key found there is remembered and the request served.
   */
  #lookUpKey(this: Routed<ServiceExchange>, refused: ApiError): void {
    resolveUnknownKey(this.authorization, refused, this.context).then(
      (found) => this.#guarded(() => (found.ok ? this.serve() : this.fail(found.error))),
      (error: Error) => this.storeFailed(error),
    );
  }

  /**
   * Answers an error; its details are what the client got wrong (an error without details names nothing). A
   * refusal decided from the headers reads the body first, for the journal (`readRefusedBody`).
   */
  fail(error: ApiError, contract = true): void {
    if (!this.#bodyRead) {
      this.#bodyRead = true;
      readRefusedBody(this.req, this, this.context.bodyLimit, error, (notKept) =>
        this.#guarded(() => {
          this.#bodyNotKept = notKept;
          this.fail(error, contract);
        }),
      );
      return;
    }
    this.#replyWith(errorReply(error));
    if (contract && this.diagnostics.length === 0) this.diagnostics = error.details;
    this.complete();
  }

  /** A bug in the mock: answered 500 (when an answer can still be sent) and logged with its stack. */
  crash(error: Error): void {
    this.#replyWith(errorReply(internalError(this.context, error)));
    this.complete();
  }

  /**
   * The reply from here on. Whatever was prepared before it (with PostgreSQL, the answer decided before its
   * statement, serialised, and its journal entry) is dropped: an error never goes out with a success's body.
   */
  #replyWith(reply: Reply | undefined): void {
    this.reply = reply;
    this.payload = undefined;
    this.#prepared = undefined;
  }

  /** The body has arrived: parse, value checks, schema, then the operation (after a planned fault, if one is due). */
  bodyArrived(this: Owned<ServiceExchange>, read: BodyResult): void {
    try {
      if (!read.ok) {
        this.#bodyNotKept = bodyNotKept(read);
        if ('gone' in read)
          this.complete(); // the client went away: nobody to answer
        else this.fail(read.error);
        return;
      }
      const refused = mockWay.body(this, this.context, read.value);
      if (refused !== undefined) this.fail(refused);
      else this.#serve(true);
    } catch (error) {
      this.crash(error as Error);
    }
  }

  /** The store serves the operation (the planned fault due first, when `claimFault`). */
  #serve(this: Owned<ServiceExchange>, claimFault: boolean): void {
    this.context.store.serve(this, this.#tenantRuntime(), claimFault);
  }

  #tenantRuntime(this: Owned<ServiceExchange>): TenantRuntime {
    return this.runtime ?? runtimeOf(this.context, this.owner.tenant);
  }

  /** The store claimed a planned fault: it strikes, after its delay if it has one. */
  faulted(this: Owned<ServiceExchange>, fault: Fault): void {
    this.#guarded(() => {
      this.#replyWith(undefined);
      if (fault.delay_ms <= 0) this.#strike(fault);
      else
        this.#tenantRuntime().delays.wait(
          fault.delay_ms,
          () => this.#guarded(() => this.#strike(fault)),
          () => this.#abandon(),
        );
    });
  }

  /**
   * The scope was reset or removed, or the mock is closing, while the request waited on its planned delay: it ends
   * without an answer (the connection closed) and is not journaled, so that it touches nothing of the next test.
   */
  #abandon(): void {
    this.res.destroy();
    logExchange(
      this.context.logger,
      { method: this.method, path: this.path, status: 0, ms: elapsedMs(this.#started) },
      noWarnings,
    );
  }

  /** A planned fault: the connection lost, an error status, or (a delay alone) the normal answer. */
  #strike(this: Owned<ServiceExchange>, fault: Fault): void {
    if (fault.action === 'reset-connection') {
      this.req.socket.destroy();
      this.complete();
    } else if (fault.status === null) {
      // A delay alone: the operation runs now, no other fault claimed for it.
      this.#serve(false);
    } else {
      // The fault's own status, on its reply: the only answer whose status the catalogue does not decide.
      const message = `fault ${fault.id}, planned with injectFault (POST /__admin/faults); a real client retries or reports this`;
      this.#replyWith({ ...errorReply(apiError('INJECTED_FAULT', message)), status: fault.status });
      this.complete();
    }
  }

  /**
   * The operation refused the request. A rotation's TOKEN_NOT_FOUND for a token the tenant's journal shows rotated
   * away says so, and when: the rule alone cannot tell it from a token never issued.
   */
  #refuse(this: Owned<ServiceExchange>, error: ApiError): void {
    const token = (this.body as { current_token?: unknown } | undefined)?.current_token;
    if (error.code !== 'TOKEN_NOT_FOUND' || typeof token !== 'string') {
      this.fail(error, false);
      return;
    }
    // The journal out of reach: the refusal as the rule gave it.
    this.context.store.rotatedAway(this.#tenantRuntime(), token).then(
      (found) =>
        this.#guarded(() =>
          this.fail(
            found === undefined ? error : rotatedTokenNotFound(found.retired, found.groupExists),
            false,
          ),
        ),
      () => this.#guarded(() => this.fail(error, false)),
    );
  }

  /** The answer to a decision, and its journal entry, before the store commits them (with PostgreSQL). */
  journal(decision: Decision<unknown>): JournalRecord {
    this.reply = answer(this, decision);
    this.payload = payloadOf(this.reply.body);
    this.#prepared = this.#journalRecord(this.payload.text);
    return this.#prepared;
  }

  /** The store ran the rule and its change is durable: answered (at once when nothing waited for the disk). */
  stored(
    this: Owned<ServiceExchange>,
    result: Result<Decision<unknown>>,
    journaled: boolean,
    shown?: Group,
  ): void {
    try {
      if (!result.ok) {
        // The tenant was removed (through another replica, with PostgreSQL): its keys are forgotten here too.
        if (result.error.code === 'AUTH_UNKNOWN_KEY') this.context.keys.forget(this.owner.tenant);
        this.#refuse(result.error);
      } else if (journaled && this.#prepared !== undefined) this.#deliver(this.#prepared);
      else this.#succeed(result.value, shown);
    } catch (error) {
      this.crash(error as Error);
    }
  }

  /** The answer to a decision; one that shows a stored group unchanged (`shown`) is memoised by that group. */
  #succeed(this: Owned<ServiceExchange>, decision: Decision<unknown>, shown: Group | undefined): void {
    this.#replyWith(answer(this, decision));
    if (shown !== undefined) this.payload = this.memo.answer(shown, decision.body);
    this.complete();
  }

  /** The store failed: 503 when it is out of reach (nothing was kept), else a bug (500). */
  storeFailed(error: Error): void {
    this.#guarded(() => {
      this.#replyWith(errorReply(storeFailure(this.context, error)));
      this.complete();
    });
  }

  /** A step past the first tick: a bug there would otherwise escape to the event loop; it answers 500 instead. */
  #guarded(step: () => void): void {
    try {
      step();
    } catch (error) {
      this.crash(error as Error);
    }
  }

  /**
   * Sends the reply (or drops the connection when there is none), then journals and logs the request. A store that
   * keeps the journal apart (PostgreSQL) has the entry first: once the client has its answer, every replica's
   * journal lists the request.
   */
  complete(): void {
    const { context, reply, res } = this;
    this.payload ??= reply === undefined ? undefined : payloadOf(reply.body);
    // A client gone before its answer (during a planned delay) is journaled with status 0.
    const delivered = !res.destroyed && !res.headersSent;
    const record = this.#journalRecord(delivered ? (this.payload?.text ?? null) : null, delivered);
    // A reply waits for its journal entry; a dropped connection has nobody to wait for it.
    const waits = reply !== undefined;
    context.store.record(this.#journalOwner()?.tenant ?? defaultTenantId, record, (error) => {
      if (error !== undefined) logStoreError(context, error, 'journal write failed');
      if (waits) this.#deliver(record);
    });
    if (!waits) this.#deliver(record);
  }

  /**
   * Whose journal the request goes to: its key's tenant, even when the request was refused before the key was checked
   * (a wrong path or method): the test that holds a tenant's key finds every request it sent in that tenant's
   * journal. No key, or one no tenant has: the default tenant's.
   */
  #journalOwner(): KeyOwner | undefined {
    if (this.owner !== undefined) return this.owner;
    if (this.#refusedOwner === null) {
      const key = sentKey(this.authorization);
      this.#refusedOwner = key === undefined ? undefined : this.context.keys.owner(key);
    }
    return this.#refusedOwner;
  }

  /** The journal record; `delivered` false when the client had gone before the answer (status 0). */
  #journalRecord(responseText: string | null, delivered = true): JournalRecord {
    const owner = this.#journalOwner();
    return {
      method: this.method,
      path: this.path,
      operationId: (this.operation?.operationId as OperationId | undefined) ?? null,
      keyEnvironment: owner?.environment ?? null,
      status: delivered ? (this.reply?.status ?? 0) : 0,
      durationMs: elapsedMs(this.#started),
      rawHeaders: this.req.rawHeaders,
      keyMatched: owner === undefined ? undefined : keyMatchedBy(owner),
      requestBodyNotKept: this.#bodyNotKept,
      requestText: this.text,
      requestBody: this.text === undefined ? (this.body ?? null) : null,
      responseText,
      diagnostics: this.diagnostics,
      warnings: this.warnings,
    };
  }

  #deliver(record: JournalRecord): void {
    const { context, reply, res, method, path } = this;
    if (reply === undefined) {
      if (!res.headersSent) res.destroy();
    } else send(res, reply, this.payload);
    const runtime = this.runtime ?? runtimeOf(context, this.#journalOwner()?.tenant ?? defaultTenantId);
    runtime.journal.record(record);
    logExchange(
      context.logger,
      { method, path, status: record.status, ms: record.durationMs },
      this.diagnostics,
    );
  }
}

/**
 * The answer when the store failed, logged: 503 when it is out of reach, 500 when a change could not be written
 * (nothing was kept either way), else a bug (500).
 */
export function storeFailure(context: MockContext, error: Error): ApiError {
  if (error instanceof StoreWriteError) {
    context.logger.error({ err: error }, 'write failed');
    return apiError('INTERNAL_ERROR', `${error.message} Retry the request.`);
  }
  if (!(error instanceof StoreUnavailableError)) return internalError(context, error);
  logStoreError(context, error, 'database unavailable');
  return apiError('STORE_UNAVAILABLE', error.reason, [], { headers: { 'retry-after': '1' } });
}

/**
 * Logs a failure of the store. A store out of reach is expected while it is away, on every request: one line with
 * the reason, not a stack trace each time; anything else with its stack.
 */
function logStoreError(context: MockContext, error: Error, what: string): void {
  if (error instanceof StoreUnavailableError) context.logger.error({ reason: error.message }, what);
  else context.logger.error({ err: error }, what);
}
