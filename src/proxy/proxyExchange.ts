import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiError } from '../errors.js';
import { Exchange, type ExchangeSettings } from '../http/exchange.js';
import type { RequestHead } from '../http/head.js';
import type { KeyScopes } from '../model/keyScope.js';
import type { ReferenceModel } from '../model/referenceModel.js';
import { errorReply } from '../pipeline/answer.js';
import { sentKey } from '../pipeline/authenticate.js';
import { Pipeline } from '../pipeline/pipeline.js';
import type { Surface } from '../pipeline/pipelineRequest.js';
import type { Result } from '../result.js';
import type { Log } from '../runtime/log.js';
import type { OperationId } from '../spec/operations.js';
import type { Diagnostic, Environment } from '../spec/types.js';
import type { Journal, JournalRecord } from '../store/journal.js';
import { diagnostic } from '../validate/diagnostic.js';
import { decodeAnswer } from './answerEncoding.js';
import { addressOf, forward, type Target, type TargetAnswer } from './forward.js';
import { endToEndHeaders, headerOf } from './headers.js';
import type { ReadAnswers } from './readAnswers.js';
import type { RecordingFile } from './recordingFile.js';

/** What every exchange of one proxy shares. */
export interface ProxyContext {
  readonly target: Target;
  readonly journal: Journal;
  readonly logger: Log;
  readonly bodyLimit: number;
  /** Answer an invalid request with the mock's error instead of forwarding it. */
  readonly blockInvalid: boolean;
  /** The reference model each answered exchange is replayed through (the provider's behaviour). */
  readonly model: ReferenceModel;
  /** Where `--record` keeps what was seen, written as it goes. */
  readonly recording: RecordingFile | undefined;
  /** The model's name of each API key seen (`keyScope`), worked out once per key. */
  readonly scopes: KeyScopes;
  /**
   * What the answers seen most recently came to (`readAnswer`), read once; lenient (accepting fields the document
   * does not name, as a real service may add some) or strict.
   */
  readonly answers: ReadAnswers;
}

const noDiagnostics: readonly Diagnostic[] = [];

/** The proxy's way: the key's form only (it holds no keys), no rate limit, the body limit. */
const proxyWay = new Pipeline<Exchange, Surface>({});

/** The settings of a proxy's exchanges: a problem it can forward is judged, unless `blockInvalid` refuses it. */
export const proxyExchangeSettings = (proxy: ProxyContext): ExchangeSettings<Exchange> => ({
  way: proxyWay,
  surface: { bodyLimit: proxy.bodyLimit },
  logger: proxy.logger,
  refuseInvalid: proxy.blockInvalid,
});

/** What a proxy cannot pass on: a path of no operation, and a body over the limit (it does not hold one to forward). */
const unforwardable: ReadonlySet<string> = new Set(['ROUTE_NOT_FOUND', 'PAYLOAD_TOO_LARGE']);

/**
 * The proxy's exchange (src/http/exchange.ts): its last step forwards the request as it came (unless it is refused
 * here: a path of no operation, a body over the limit, broken framing, or with `blockInvalid` any invalid request)
 * and passes the target's answer back unchanged, then judges it by `validateResponse` and the reference model
 * (src/model: the provider's diagnostics). Judging never holds a request or an answer up, except the request under
 * `blockInvalid`. The exchange is journaled once, with whose fault its diagnostics are.
 */
export class ProxyExchange extends Exchange {
  /** What the target's answer got wrong (the provider's diagnostics). */
  #provider: readonly Diagnostic[] = noDiagnostics;
  /** Risky values of the answer, accepted and reported. */
  #answerWarnings: readonly Diagnostic[] = noDiagnostics;
  /** The scope of the key the request carried (null until worked out, undefined when it carried none). */
  #scope: string | undefined | null = null;

  constructor(
    private readonly proxy: ProxyContext,
    settings: ExchangeSettings<Exchange>,
    req: IncomingMessage,
    res: ServerResponse,
    head: RequestHead,
  ) {
    super(settings, req, res, head);
  }

  protected override goesOn(problem: ApiError): boolean {
    return !this.proxy.blockInvalid && !unforwardable.has(problem.code);
  }

  /** Taken when the rules or the journal first need it, after the request is on its way. */
  #scopeOf(): string | undefined {
    if (this.#scope === null) {
      const apiKey = sentKey(this.authorization);
      this.#scope = apiKey === undefined ? undefined : this.proxy.scopes.of(apiKey);
    }
    return this.#scope;
  }

  /** The last step: forwarded as it came, the target's answer passed back and judged. */
  protected last(): void {
    const { req, path, raw } = this;
    const url = req.url ?? '/';
    const sent = {
      method: this.method,
      pathAndQuery: url.startsWith('/') ? url : path,
      headers: endToEndHeaders(req.rawHeaders, ['host', 'expect']),
      body: raw,
    };
    forward(this.proxy.target, sent, (answer: Result<TargetAnswer, ApiError>) => {
      try {
        this.judge(); // done already, unless the answer came first
        if (answer.ok) this.#answered(answer.value);
        else this.#unanswered(answer.error);
      } catch (error) {
        this.proxy.logger.error({ err: error }, 'proxy exchange failed');
        if (!this.res.headersSent) this.res.destroy();
      }
    });
  }

  /** The target could not answer: 502 or 504 here, journaled as the provider's. */
  #unanswered(error: ApiError): void {
    this.#provider = [diagnostic(error.code, '/status', error.message)];
    this.replyWith(errorReply(error));
    this.finish();
  }

  #answered(answer: TargetAnswer): void {
    const { proxy, res, method, path } = this;
    const { status } = answer;
    if (!res.headersSent && !res.destroyed) passBack(res, method, answer);
    const contentType = headerOf(answer.rawHeaders, 'content-type');
    const provider: Diagnostic[] = [];
    const warnings: Diagnostic[] = answer.sentAgain ? [sentAgain(proxy.target, method, path)] : [];
    const operation = this.operation;
    let body = answer.body;
    let decodable = true;
    const coding = headerOf(answer.rawHeaders, 'content-encoding');
    if (coding !== undefined && body.length > 0) {
      const decoded = decodeAnswer(body, coding, proxy.target.bodyLimit);
      if (decoded.kind === 'decoded') body = decoded.body;
      else {
        decodable = false;
        const found = diagnostic('BODY_INVALID_ENCODING', '/headers/content-encoding', decoded.message);
        (decoded.kind === 'corrupt' ? provider : warnings).push(found);
      }
    }
    let text: string | null | undefined;
    if (operation !== undefined && decodable) {
      const read = proxy.answers.read(this, { status, contentType, body });
      text = read.text;
      provider.push(...read.diagnostics);
      const keyed = this.#scopeOf();
      const operationId = operation.operationId as OperationId;
      // The rules judge a valid request; after one that broke the contract, the model follows what the service did.
      if (keyed !== undefined) {
        if (this.diagnostics.length === 0)
          for (const found of proxy.model.judge(operationId, this.body, status, read.value, keyed))
            provider.push(resetHint(found));
        else proxy.model.follow(operationId, this.body, status, read.value, keyed);
      }
    }
    text ??= body.length === 0 ? null : JSON.stringify(body.toString('utf8'));
    this.#provider = provider;
    this.#answerWarnings = warnings;
    this.passed = { status, text };
    this.finish();
    const url = this.req.url ?? '/';
    proxy.recording?.add({
      method,
      path,
      query: url.includes('?') ? url.slice(url.indexOf('?') + 1) : '',
      operationId: operation?.operationId,
      apiKey: sentKey(this.authorization),
      keyScope: this.#scopeOf(),
      requestContentType: [this.contentType ?? []].flat()[0],
      requestBody: this.raw,
      status,
      responseContentType: contentType,
      responseBody: body,
      providerDiagnostics: provider,
    });
  }

  protected key(): Pick<JournalRecord, 'keyEnvironment' | 'keyMatched'> {
    const scoped = this.#scopeOf();
    const environment =
      scoped === undefined ? undefined : (this.proxy.model.environmentOf(scoped) as Environment | undefined);
    return {
      keyEnvironment: environment ?? null,
      keyMatched:
        scoped === undefined
          ? notAKey
          : environment === undefined
            ? keyNotPlaced
            : `a key the service answers in ${environment}`,
    };
  }

  /** Judged on both sides: each diagnostic says which it is about (JournalDiagnostic of openapi/admin.yaml). */
  protected override journalRecord(status: number, responseText: string | null): JournalRecord {
    const record = super.journalRecord(status, responseText);
    const provider = this.#provider;
    const answerWarnings = this.#answerWarnings;
    if (provider.length === 0 && answerWarnings.length === 0) return record;
    const client = record.diagnostics;
    return {
      ...record,
      ...(provider.length === 0
        ? {}
        : {
            diagnostics: [
              ...client.map((d) => ({ ...d, about: 'request' })),
              ...provider.map((d) => ({ ...d, about: 'answer' })),
            ],
            fault: client.length === 0 ? 'provider' : 'both',
          }),
      warnings: answerWarnings.length === 0 ? record.warnings : [...record.warnings, ...answerWarnings],
    };
  }

  protected keep(record: JournalRecord, written: () => void): void {
    this.proxy.journal.record(record);
    written();
  }
}

/**
 * The warning of an answer to a request sent twice: the kept-alive connection it went on first closed without an
 * answer, as it does when the target closes an idle connection just as the request arrives (HTTP lets a client send
 * a method that is safe to repeat again then), and as it would if the service cut the connection after reading it.
 */
const sentAgain = (target: Target, method: string, path: string): Diagnostic =>
  diagnostic(
    'UPSTREAM_SENT_AGAIN',
    '/status',
    `the target ${addressOf(target, path)} closed its kept-alive connection without answering this ${method}, so the proxy sent it again on a new connection (HTTP allows it for a method that is safe to repeat) and this is the second answer; if the service dropped the connection after reading the request (a crash, a reset), this answer hides that: its log says which`,
  );

/**
 * The divergences a service that lost its groups behind the proxy gives (its database reset or replaced while the
 * proxy ran): a group the proxy saw made anew, or refused as unknown. The proxy's model still holds what it saw, so
 * each such divergence also says how to make it forget.
 */
const goneBehind: ReadonlySet<string> = new Set(['PROVIDER_GROUP_CREATED_AGAIN', 'PROVIDER_CALL_REFUSED']);

function resetHint(found: Diagnostic): Diagnostic {
  if (!goneBehind.has(found.code)) return found;
  return {
    ...found,
    message: `${found.message}; if the service's groups were removed behind the proxy (a reset, a new database), reset the proxy too (POST /__admin/reset on it, or reset()), so that it forgets the groups it saw`,
  };
}

/** What an `Authorization` the proxy could not read as `Token <key>` matched, as the journal shows it. */
const notAKey = 'not read as an API key';
/** What a key matched before any answer to it named its environment (`api_environment_tag`). */
const keyNotPlaced =
  "a key whose environment no answer has shown yet (the proxy learns it from the service's answers)";

/**
 * Writes the target's answer to the client: status, reason, end-to-end headers and body as they came, framed by
 * the body's length. An answer that has no body by HTTP's rules (to a HEAD, a 204 or a 304) keeps the target's
 * Content-Length, which describes the representation (none for a 204, which may not carry one).
 */
function passBack(res: ServerResponse, method: string, answer: TargetAnswer): void {
  const { status, body } = answer;
  const headers = endToEndHeaders(answer.rawHeaders);
  const bodiless = method === 'HEAD' || status === 204 || status === 304;
  const length = bodiless
    ? status === 204
      ? undefined
      : headerOf(answer.rawHeaders, 'content-length')
    : String(body.length);
  if (length !== undefined) headers.push('Content-Length', length);
  res.writeHead(status, answer.reason, headers);
  if (bodiless) res.end();
  else res.end(body);
}
