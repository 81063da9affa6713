import type { IncomingMessage, ServerResponse } from 'node:http';
import { defaultTenantId, type Group } from '../domain/model.js';
import { type Decision, rotatedTokenNotFound } from '../domain/userGroups.js';
import { type ApiError, apiError, retryLaterStatuses } from '../errors.js';
import { answer, errorReply, type Reply } from '../pipeline/answer.js';
import { sentKey } from '../pipeline/authenticate.js';
import { Pipeline } from '../pipeline/pipeline.js';
import { isOwned, noWarnings, type Owned, type Routed, type Surface } from '../pipeline/pipelineRequest.js';
import type { Result } from '../result.js';
import type { KeyOwner } from '../runtime/keyRing.js';
import { elapsedMs, logExchange } from '../runtime/log.js';
import { type MockContext, tenantState } from '../runtime/mockContext.js';
import type { Fault } from '../store/faults.js';
import type { JournalRecord } from '../store/journal.js';
import { keyMatchedBy } from '../store/requestHeaders.js';
import { StoreUnavailableError, StoreWriteError, type TenantState } from '../store/store.js';
import { diagnostic } from '../validate/diagnostic.js';
import type { AnswerMemo } from './answerMemo.js';
import { authenticateOnConnection, resolveUnknownKey } from './connectionKeys.js';
import { Exchange, type ExchangeSettings } from './exchange.js';
import type { RequestHead } from './head.js';
import { internalError } from './internalError.js';
import { payloadOf } from './respond.js';

/** The mock's way: every step, the key remembered per connection in front of `authenticate` (decision 5). */
const mockWay = new Pipeline<Exchange, Surface>({
  authenticate: (exchange, context) =>
    authenticateOnConnection(exchange, exchange.req.socket, context as MockContext),
});

/** The settings of the mock's exchanges: its way, its context as the steps' surface, every problem refused. */
export const mockExchangeSettings = (context: MockContext): ExchangeSettings<Exchange> => ({
  way: mockWay,
  surface: context,
  logger: context.logger,
  refuseInvalid: true,
});

/**
 * The mock's exchange (src/http/exchange.ts): its last step has the store serve the operation, and its journal
 * entries go to the key's tenant. Once `Owned` (routed, its key known), it is also the store's `ServiceCall`.
 */
export class ServiceExchange extends Exchange {
  /** The journal and faults of the key's tenant, once the key is known (else the default tenant's journal). */
  tenant: TenantState | undefined = undefined;
  /** The journal entry of the answer prepared before the store wrote it with its change (PostgreSQL). */
  #prepared: JournalRecord | undefined = undefined;
  /** The owner of the key a refused request carried, worked out once (null until then). */
  #refusedOwner: KeyOwner | undefined | null = null;

  constructor(
    private readonly context: MockContext,
    settings: ExchangeSettings<Exchange>,
    private readonly memo: AnswerMemo,
    req: IncomingMessage,
    res: ServerResponse,
    head: RequestHead,
  ) {
    super(settings, req, res, head);
  }

  /**
   * A key the key ring does not know: the store is asked before the key is refused (`resolveUnknownKey`, as the
   * admin API does); a key found there is remembered and the header stage runs again.
   */
  protected override headRefused(this: Routed<ServiceExchange>, problem: ApiError): void {
    if (problem.code !== 'AUTH_UNKNOWN_KEY' || this.owner !== undefined) {
      this.fail(problem);
      return;
    }
    resolveUnknownKey(this.authorization, problem, this.context).then(
      (found) => this.guarded(() => (found.ok ? this.headStage() : this.fail(found.error))),
      (error: Error) => this.storeFailed(error),
    );
  }

  /** The last step: the store serves the operation (the planned fault due first). */
  protected last(): void {
    // With a key ring, a request that passed `authenticate` has its owner.
    if (isOwned(this as Routed<ServiceExchange>)) (this as Owned<ServiceExchange>).#serve(true);
    else this.crash(new Error('a request passed authenticate without an owner'));
  }

  protected override replyWith(reply: Reply | undefined): void {
    super.replyWith(reply);
    this.#prepared = undefined;
  }

  /** The store serves the operation (the planned fault due first, when `claimFault`). */
  #serve(this: Owned<ServiceExchange>, claimFault: boolean): void {
    this.context.store.serve(this, this.#tenantState(), claimFault);
  }

  #tenantState(this: Owned<ServiceExchange>): TenantState {
    this.tenant ??= tenantState(this.context, this.owner.tenant);
    return this.tenant;
  }

  /** The store claimed a planned fault: it strikes, after its delay if it has one. */
  faulted(this: Owned<ServiceExchange>, fault: Fault): void {
    this.guarded(() => {
      this.replyWith(undefined);
      if (fault.delay_ms <= 0) this.#strike(fault);
      else
        this.#tenantState().delays.wait(
          fault.delay_ms,
          () => this.guarded(() => this.#strike(fault)),
          () => this.#abandon(),
        );
    });
  }

  /**
   * The tenant was reset or removed, or the mock is closing, while the request waited on its planned delay: it ends
   * without an answer (the connection closed) and is not journaled, so that it touches nothing of the next test.
   */
  #abandon(): void {
    this.res.destroy();
    logExchange(
      this.context.logger,
      { method: this.method, path: this.path, status: 0, ms: elapsedMs(this.started) },
      noWarnings,
    );
  }

  /** A planned fault: the connection lost, an error status, or (a delay alone) the normal answer. */
  #strike(this: Owned<ServiceExchange>, fault: Fault): void {
    if (fault.action === 'reset-connection') {
      // The journal says why the connection closed: a client that went away looks the same (status 0).
      const message = `fault ${fault.id}, planned with injectFault (POST /__admin/faults), closed the connection without an answer (reset-connection)`;
      this.warnings = [...this.warnings, diagnostic('INJECTED_FAULT', '/status', message)];
      this.req.socket.destroy();
      this.finish();
    } else if (fault.status === null) {
      // A delay alone: the operation runs now, no other fault claimed for it.
      this.#serve(false);
    } else {
      // The fault's own status, on its reply: the only answer whose status the catalogue does not decide. A 429
      // or a 503 says when to retry, as the contract's answers of those statuses do.
      const message = `fault ${fault.id}, planned with injectFault (POST /__admin/faults); a real client retries or reports this`;
      const headers = retryLaterStatuses.has(fault.status) ? { headers: { 'retry-after': '1' } } : {};
      this.replyWith({
        ...errorReply(apiError('INJECTED_FAULT', message, [], headers)),
        status: fault.status,
      });
      this.finish();
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
    this.context.store.rotatedAway(this.#tenantState(), token).then(
      (found) =>
        this.guarded(() =>
          this.fail(
            found === undefined ? error : rotatedTokenNotFound(found.retired, found.groupExists),
            false,
          ),
        ),
      () => this.guarded(() => this.fail(error, false)),
    );
  }

  /** The answer to a decision, and its journal entry, before the store commits them (with PostgreSQL). */
  journal(decision: Decision<unknown>): JournalRecord {
    this.reply = answer(this, decision);
    this.payload = payloadOf(this.reply.body);
    this.#prepared = this.journalRecord(this.reply.status, this.payload.text);
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
      } else if (journaled && this.#prepared !== undefined) this.deliver(this.#prepared);
      else this.#succeed(result.value, shown);
    } catch (error) {
      this.crash(error as Error);
    }
  }

  /** The answer to a decision; one that shows a stored group unchanged (`shown`) is memoised by that group. */
  #succeed(this: Owned<ServiceExchange>, decision: Decision<unknown>, shown: Group | undefined): void {
    this.replyWith(answer(this, decision));
    if (shown !== undefined) this.payload = this.memo.answer(shown, decision.body);
    this.finish();
  }

  /** The store failed: 503 when it is out of reach (nothing was kept), else a bug (500). */
  storeFailed(error: Error): void {
    this.guarded(() => {
      this.replyWith(errorReply(storeFailure(this.context, error)));
      this.finish();
    });
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

  protected key(): Pick<JournalRecord, 'keyEnvironment' | 'keyMatched'> {
    const owner = this.#journalOwner();
    return {
      keyEnvironment: owner?.environment ?? null,
      keyMatched: owner === undefined ? undefined : keyMatchedBy(owner),
    };
  }

  /**
   * A store that keeps the journal apart (PostgreSQL) has the entry first: once the client has its answer, every
   * replica's journal lists the request. This process's journal of the tenant (which watchers hear) has it then.
   */
  protected keep(record: JournalRecord, written: () => void): void {
    const { context } = this;
    context.store.record(this.#journalOwner()?.tenant ?? defaultTenantId, record, (error) => {
      if (error !== undefined) logStoreError(context, error, 'journal write failed');
      written();
    });
  }

  protected override deliver(record: JournalRecord): void {
    super.deliver(record);
    const tenant = this.tenant ?? tenantState(this.context, this.#journalOwner()?.tenant ?? defaultTenantId);
    tenant.journal.record(record);
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
