import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiError } from '../errors.js';
import { errorReply, type Reply } from '../pipeline/answer.js';
import { findOperation } from '../pipeline/findOperation.js';
import { checkLimits, type Pipeline, parseBody } from '../pipeline/pipeline.js';
import { noWarnings, PipelineRequest, type Routed, type Surface } from '../pipeline/pipelineRequest.js';
import { elapsedMs, type Log, logExchange } from '../runtime/log.js';
import type { OperationId } from '../spec/operations.js';
import type { Diagnostic } from '../spec/types.js';
import type { JournalRecord } from '../store/journal.js';
import { type BodyResult, type BodySink, collectBody } from './collectBody.js';
import type { RequestHead } from './head.js';
import { internalError } from './internalError.js';
import { bodyNotKept, readRefusedBody } from './refusedBody.js';
import { type Payload, payloadOf, send } from './respond.js';

/** What an entry point (the mock, the proxy) sets for each of its exchanges: its way through the steps, its limits. */
export interface ExchangeSettings<X extends PipelineRequest> {
  /** The entry point's pipeline: the steps of the header and body stages, with its own in place of some. */
  readonly way: Pipeline<X, Surface>;
  /** What the steps are given: the body limit, and where there are some, the keys and the rate limit. */
  readonly surface: Surface;
  readonly logger: Log;
  /**
   * Whether a problem a stage finds refuses the request (the mock; the proxy with `blockInvalid`). Otherwise (the
   * proxy) a problem it can pass on is journaled as the client's and the request goes on to the last step, which
   * starts before the body is judged: the client's wait does not include the judging.
   */
  readonly refuseInvalid: boolean;
}

/** The answer the last step wrote itself (the proxy passes the target's back as it came), as the journal keeps it. */
export interface Passed {
  readonly status: number;
  readonly text: string | null;
}

/**
 * One request on the service path, from the route to the journal, the same for every entry point: the route, the
 * header stage (at once), the body, the body stage, then the entry point's last step (the mock serves the operation
 * on its store, the proxy forwards the request); then the answer, the journal entry and the log line, once
 * (`finish`). A problem a stage finds is refused here, the body read first for the journal. The entry point
 * supplies its settings and, as a subclass, its last step, how its journal entry names the key, and where the
 * entry is kept.
 *
 * Written with callbacks rather than closures and `await`: once the body has arrived, a request whose last step
 * needs nothing from the disk is answered in the same tick, and a request allocates one object for its whole
 * course (decision 3).
 */
export abstract class Exchange extends PipelineRequest implements BodySink {
  reply: Reply | undefined = undefined;
  /** The reply's body already serialised, else undefined. */
  payload: Payload | undefined = undefined;
  /** The answer the last step wrote itself, when it did (the proxy's passed-back answer). */
  protected passed: Passed | undefined = undefined;
  /** What the client got wrong against the document (listed by the journal's `invalid=true`). */
  diagnostics: readonly Diagnostic[] = noWarnings;
  /** Whether the body has been read (or reading it has begun): a refusal before that reads it first. */
  #bodyRead = false;
  /** Whether the body stage has run (or is not to run). */
  #judged = false;
  /** Why the body the request announced is not in the journal, if it is not. */
  protected bodyNotKept: string | undefined = undefined;
  /** The body as it arrived, for the last step. */
  protected raw: Buffer | undefined = undefined;
  protected readonly started: number;

  constructor(
    protected readonly settings: ExchangeSettings<Exchange>,
    readonly req: IncomingMessage,
    protected readonly res: ServerResponse,
    head: RequestHead,
  ) {
    super(req.method ?? 'GET', head.path, head);
    this.started = performance.now();
  }

  /**
   * The entry point's last step, for a request the stages passed (or, with `refuseInvalid` off, judged): the body
   * has arrived (`raw`). It ends with `finish`, or with `fail` or `crash`.
   */
  protected abstract last(): void;

  /** The journal's `keyEnvironment` and `keyMatched`: what the key the request carried is to this entry point. */
  protected abstract key(): Pick<JournalRecord, 'keyEnvironment' | 'keyMatched'>;

  /**
   * Keeps the journal entry, then calls `written`: at once when the journal is in this process, once it is stored
   * otherwise (PostgreSQL). A reply waits for it: once the client has its answer, the journal lists the request.
   */
  protected abstract keep(record: JournalRecord, written: () => void): void;

  /**
   * The way: refused already by the dispatcher (`refused`: no Host header), else the route, the header stage, the
   * body, the body stage, and the last step.
   */
  run(refused: ApiError | undefined): void {
    try {
      if (refused !== undefined) {
        this.fail(refused);
        return;
      }
      const routed = findOperation(this);
      if (!('code' in routed)) {
        routed.headStage();
        return;
      }
      if (!this.goesOn(routed)) {
        this.fail(routed);
        return;
      }
      // Passed on without an operation (the proxy): nothing to judge the body by but its limit.
      this.diagnostics = routed.details;
      const tooLarge = checkLimits(this, this.settings.surface);
      if (tooLarge !== undefined) this.fail(tooLarge);
      else this.#readBody();
    } catch (error) {
      this.crash(error as Error);
    }
  }

  /** The header stage: its problem refused (`headRefused`), or with `refuseInvalid` off journaled if it can be passed on. */
  protected headStage(this: Routed<Exchange>): void {
    const { way, surface, refuseInvalid } = this.settings;
    if (refuseInvalid) {
      const refused = way.head(this, surface);
      if (refused !== undefined) {
        this.headRefused(refused);
        return;
      }
    } else {
      // Every problem: one that cannot be passed on (a body over the limit) refuses it, whichever comes first.
      const found: ApiError[] = [];
      way.head(this, surface, found);
      const stop = found.find((problem) => !this.goesOn(problem));
      if (stop !== undefined) {
        this.fail(stop);
        return;
      }
      // The first problem is the verdict: the body is then kept for the journal, not judged.
      if (found[0] !== undefined) this.diagnostics = found[0].details;
    }
    this.#readBody();
  }

  /** A problem of the header stage, refusing the request (the mock first asks its store about an unknown key). */
  protected headRefused(this: Routed<Exchange>, problem: ApiError): void {
    this.fail(problem);
  }

  /**
   * Whether a problem can be passed on to the last step, journaled as the client's, rather than refused: never for
   * the mock; the proxy passes on what it can forward.
   */
  protected goesOn(_problem: ApiError): boolean {
    return false;
  }

  #readBody(): void {
    this.#bodyRead = true;
    if (!this.bodySent) this.#arrived(undefined);
    else collectBody(this.req, this.contentLength, this.settings.surface.bodyLimit, this);
  }

  /** The body has arrived (or could not be read): the body stage, then the last step. */
  bodyArrived(read: BodyResult): void {
    try {
      if (read.ok) {
        this.#arrived(read.value);
        return;
      }
      this.bodyNotKept = bodyNotKept(read);
      if ('gone' in read)
        this.finish(); // the client went away: nobody to answer
      else this.fail(read.error);
    } catch (error) {
      this.crash(error as Error);
    }
  }

  #arrived(raw: Buffer | undefined): void {
    this.raw = raw;
    if (this.settings.refuseInvalid) {
      const refused = this.judge();
      if (refused !== undefined) this.fail(refused);
      else this.last();
      return;
    }
    this.last();
    // The request is on its way once this turn of the event loop ends: judged after that (or when asked first).
    if (!this.#judged) setImmediate(() => this.#judgeAside());
  }

  /** The body stage while the last step works: a bug in it is logged, the answer already on its way. */
  #judgeAside(): void {
    try {
      this.judge();
    } catch (error) {
      this.settings.logger.error({ err: error }, 'judging the request failed');
    }
  }

  /**
   * The body stage, once: parse, value checks, schema. Returns the problem found (journaled as the client's); a
   * request passed on with a problem already has its body parsed for the journal alone.
   */
  protected judge(): ApiError | undefined {
    if (this.#judged) return undefined;
    this.#judged = true;
    const { raw } = this;
    if (raw === undefined) return undefined;
    if (this.operation === undefined || this.diagnostics.length > 0) {
      parseBody(this, raw); // for the journal alone
      return undefined;
    }
    const { way, surface } = this.settings;
    const problem = way.body(this as Routed<Exchange>, surface, raw);
    if (problem !== undefined && this.diagnostics.length === 0) this.diagnostics = problem.details;
    return problem;
  }

  /**
   * Answers an error; its details are what the client got wrong (unless `contract` is false: the service's own
   * refusal). A refusal decided before the body was read reads it first, for the journal (`readRefusedBody`).
   */
  fail(error: ApiError, contract = true): void {
    if (!this.#bodyRead) {
      this.#bodyRead = true;
      readRefusedBody(this.req, this, this.settings.surface.bodyLimit, error, (notKept) =>
        this.guarded(() => {
          this.bodyNotKept = notKept;
          this.fail(error, contract);
        }),
      );
      return;
    }
    this.replyWith(errorReply(error));
    if (contract && this.diagnostics.length === 0) this.diagnostics = error.details;
    this.finish();
  }

  /** A bug in user-group-mock: answered 500 (when an answer can still be sent) and logged with its stack. */
  crash(error: Error): void {
    this.replyWith(errorReply(internalError(this.settings, error)));
    this.finish();
  }

  /** The reply from here on; whatever was prepared before it is dropped (an error never goes out with a success's body). */
  protected replyWith(reply: Reply | undefined): void {
    this.reply = reply;
    this.payload = undefined;
  }

  /** A step past the first tick: a bug there would otherwise escape to the event loop; it answers 500 instead. */
  protected guarded(step: () => void): void {
    try {
      step();
    } catch (error) {
      this.crash(error as Error);
    }
  }

  /**
   * Sends the reply (or drops the connection when there is none, unless the last step answered itself), then
   * journals and logs the request. A reply waits for its journal entry to be kept; a dropped connection has nobody
   * to wait for it.
   */
  finish(): void {
    const { reply, res, passed } = this;
    this.payload ??= reply === undefined ? undefined : payloadOf(reply.body);
    // A client gone before its answer (during a planned delay) is journaled with status 0.
    const record =
      passed !== undefined
        ? this.journalRecord(passed.status, passed.text)
        : !res.destroyed && !res.headersSent
          ? this.journalRecord(reply?.status ?? 0, this.payload?.text ?? null)
          : this.journalRecord(0, null);
    if (reply === undefined) {
      this.deliver(record);
      this.keep(record, noop);
    } else this.keep(record, () => this.deliver(record));
  }

  /** The journal record of this request, answered `status` with `responseText`. */
  protected journalRecord(status: number, responseText: string | null): JournalRecord {
    return {
      method: this.method,
      path: this.path,
      operationId: (this.operation?.operationId as OperationId | undefined) ?? null,
      ...this.key(),
      status,
      durationMs: elapsedMs(this.started),
      rawHeaders: this.req.rawHeaders,
      requestBodyNotKept: this.bodyNotKept,
      requestText: this.text,
      requestBody: this.text === undefined ? (this.body ?? null) : null,
      responseText,
      diagnostics: this.diagnostics,
      warnings: this.warnings,
    };
  }

  /** Writes the reply (or, with none, drops the connection unless the last step answered), then logs the request. */
  protected deliver(record: JournalRecord): void {
    const { reply, res } = this;
    if (reply !== undefined) send(res, reply, this.payload);
    else if (this.passed === undefined && !res.headersSent) res.destroy();
    logExchange(
      this.settings.logger,
      { method: this.method, path: this.path, status: record.status, ms: record.durationMs },
      record.diagnostics,
    );
  }
}

const noop = (): void => {};
