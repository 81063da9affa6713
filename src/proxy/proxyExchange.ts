import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiError } from '../errors.js';
import { collectBody } from '../http/collectBody.js';
import type { RequestHead } from '../http/head.js';
import { bodyNotKept as notKeptOf, readRefusedBody } from '../http/refusedBody.js';
import { send } from '../http/respond.js';
import { keyScope } from '../model/keyScope.js';
import type { ReferenceModel } from '../model/referenceModel.js';
import { errorReply } from '../pipeline/answer.js';
import { sentKey } from '../pipeline/authenticate.js';
import { findOperation } from '../pipeline/findOperation.js';
import { checkLimits, Pipeline, parseBody } from '../pipeline/pipeline.js';
import { PipelineRequest } from '../pipeline/pipelineRequest.js';
import { judgeResponse } from '../pipeline/validateResponse.js';
import type { Result } from '../result.js';
import { elapsedMs, type Log, logExchange } from '../runtime/log.js';
import type { OperationId } from '../spec/operations.js';
import type { Diagnostic, Environment } from '../spec/types.js';
import type { Journal } from '../store/journal.js';
import { diagnostic } from '../validate/diagnostic.js';
import { parseJsonBody } from '../validate/jsonText.js';
import { decodeAnswer } from './answerEncoding.js';
import { forward, type Target, type TargetAnswer } from './forward.js';
import { endToEndHeaders, headerOf } from './headers.js';
import type { RecordingFile } from './recordingFile.js';

/** What every exchange of one proxy shares. */
export interface ProxyContext {
  readonly target: Target;
  readonly journal: Journal;
  readonly logger: Log;
  readonly bodyLimit: number;
  /** Accept fields the document does not name in answers (a real service may add some). */
  readonly lenient: boolean;
  /** Answer an invalid request with the mock's error instead of forwarding it. */
  readonly blockInvalid: boolean;
  /** The reference model each answered exchange is replayed through (the provider's behaviour). */
  readonly model: ReferenceModel;
  /** Where `--record` keeps what was seen, written as it goes. */
  readonly recording: RecordingFile | undefined;
}

const noDiagnostics: readonly Diagnostic[] = [];

/**
 * The proxy's way: the key's form only (it holds no keys), no rate limit, the body limit before anything (above).
 * It stops at the first problem, like the mock it stands in for.
 */
const proxyWay = new Pipeline({ checkLimits: null });

/**
 * One request through the proxy: it is forwarded as it came (unless it is refused here: a body over the limit,
 * broken framing, or with `blockInvalid` any invalid request) and the pipeline's steps up to the schema judge it
 * (the client's diagnostics); the target's answer is passed back unchanged, then judged by `validateResponse` and
 * the reference model (src/model: the provider's diagnostics). Judging never holds a request or an answer up, except the
 * request under `blockInvalid`. The exchange is journalled once, with whose fault its diagnostics are.
 */
export function proxyExchange(
  proxy: ProxyContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  head: RequestHead,
  refused: ApiError | undefined,
): void {
  const started = performance.now();
  const method = req.method ?? 'GET';
  const url = req.url ?? '/';
  const request = new PipelineRequest(method, path, head);
  const apiKey = sentKey(request.authorization);
  // Taken when the rules or the journal first need it, after the request is on its way.
  let scope: string | undefined;
  const scopeOf = (): string | undefined => (scope ??= apiKey === undefined ? undefined : keyScope(apiKey));
  let clientDiagnostics: readonly Diagnostic[] = noDiagnostics;
  let bodyNotKept: string | undefined;
  const journal = (
    status: number,
    responseText: string | null,
    provider: readonly Diagnostic[],
    answerWarnings: readonly Diagnostic[] = noDiagnostics,
  ): void => {
    const client = clientDiagnostics;
    const scoped = scopeOf();
    const ms = elapsedMs(started);
    // Judged on both sides: each diagnostic says which it is about (JournalDiagnostic of openapi/admin.yaml).
    const diagnostics =
      provider.length === 0
        ? client
        : [
            ...client.map((d) => ({ ...d, about: 'request' })),
            ...provider.map((d) => ({ ...d, about: 'answer' })),
          ];
    const environment = scoped === undefined ? undefined : (proxy.model.environmentOf(scoped) as Environment);
    proxy.journal.record({
      method,
      path,
      operationId: (request.operation?.operationId as OperationId | undefined) ?? null,
      keyEnvironment: environment ?? null,
      status,
      durationMs: ms,
      rawHeaders: req.rawHeaders,
      keyMatched:
        scoped === undefined
          ? notAKey
          : environment === undefined
            ? keyNotPlaced
            : `a key the service answers in ${environment}`,
      requestBodyNotKept: bodyNotKept,
      requestText: request.text,
      requestBody: request.text === undefined ? (request.body ?? null) : null,
      responseText,
      diagnostics,
      warnings: answerWarnings.length === 0 ? request.warnings : [...request.warnings, ...answerWarnings],
      ...(provider.length === 0 ? {} : { fault: client.length === 0 ? 'provider' : 'both' }),
    });
    logExchange(proxy.logger, { method, path, status, ms }, diagnostics);
  };
  /** Answers here rather than forwarding (the mock's error, the client's fault), the body read first. */
  const refuseUnread = (error: ApiError): void =>
    readRefusedBody(req, request, proxy.bodyLimit, error, (notKept) => {
      bodyNotKept = notKept;
      refuse(error);
    });
  /** Answers here rather than forwarding: the mock's error, the client's fault. */
  const refuse = (error: ApiError): void => {
    if (clientDiagnostics.length === 0) clientDiagnostics = error.details;
    const reply = errorReply(error);
    journal(reply.status, send(res, reply) ?? null, noDiagnostics);
  };
  /** The target could not answer: 502 or 504 here, journalled as the provider's. */
  const unanswered = (error: ApiError): void => {
    const reply = errorReply(error);
    journal(reply.status, send(res, reply) ?? null, [diagnostic(error.code, '/status', error.message)]);
  };

  // Refused by the dispatcher (no Host header): answered here, as the mock answers it.
  if (refused !== undefined) {
    refuseUnread(refused);
    return;
  }
  // A body over the limit is refused whatever else is wrong: the proxy does not hold one to forward.
  const tooLarge = checkLimits(request, proxy);
  if (tooLarge !== undefined) {
    refuseUnread(tooLarge);
    return;
  }
  const found = findOperation(request);
  const routed = 'code' in found ? undefined : found;
  const headFirst = 'code' in found ? found : proxyWay.head(found, proxy);
  if (headFirst !== undefined && (proxy.blockInvalid || headFirst.code === 'ROUTE_NOT_FOUND')) {
    refuseUnread(headFirst);
    return;
  }
  if (headFirst !== undefined) clientDiagnostics = headFirst.details;

  /** The client's diagnostics of the body (parsed into `request`), or the error that refuses it. */
  const judgeBody = (bytes: Buffer | undefined): ApiError | undefined => {
    if (bytes === undefined) return undefined;
    if (routed !== undefined && headFirst === undefined) return proxyWay.body(routed, proxy, bytes);
    parseBody(request, bytes); // for the journal alone
    return undefined;
  };

  const withBody = (bytes: Buffer | undefined): void => {
    // With blockInvalid the verdict decides whether to forward; without, the request is on its way first and
    // judged while the target works (the client's wait does not include the judging).
    const blocked = proxy.blockInvalid ? judgeBody(bytes) : undefined;
    if (blocked !== undefined) {
      refuse(blocked);
      return;
    }
    const sent = {
      method,
      pathAndQuery: url.startsWith('/') ? url : path,
      headers: endToEndHeaders(req.rawHeaders, ['host', 'expect']),
      body: bytes,
    };
    let judged = proxy.blockInvalid;
    const judge = (): void => {
      if (judged) return;
      judged = true;
      const refused = judgeBody(bytes);
      if (refused !== undefined) clientDiagnostics = refused.details;
    };
    forward(proxy.target, sent, (answer: Result<TargetAnswer, ApiError>) => {
      try {
        judge(); // done already, unless the answer came first
        if (answer.ok) answered(answer.value, bytes);
        else unanswered(answer.error);
      } catch (error) {
        proxy.logger.error({ err: error }, 'proxy exchange failed');
        if (!res.headersSent) res.destroy();
      }
    });
    // The request is written to the target once this turn of the event loop ends: judge it after that.
    if (!judged) setImmediate(judge);
  };

  const answered = (answer: TargetAnswer, sentBody: Buffer | undefined): void => {
    const { status } = answer;
    if (!res.headersSent && !res.destroyed) passBack(res, method, answer);
    const contentType = headerOf(answer.rawHeaders, 'content-type');
    const provider: Diagnostic[] = [];
    const warnings: Diagnostic[] = [];
    const operation = request.operation;
    let body = answer.body;
    let decodable = true;
    const coding = headerOf(answer.rawHeaders, 'content-encoding');
    if (coding !== undefined && body.length > 0) {
      const decoded = decodeAnswer(body, coding, proxy.bodyLimit);
      if (decoded.kind === 'decoded') body = decoded.body;
      else {
        decodable = false;
        const found = diagnostic('BODY_INVALID_ENCODING', '/headers/content-encoding', decoded.message);
        (decoded.kind === 'corrupt' ? provider : warnings).push(found);
      }
    }
    let value: unknown;
    if (operation !== undefined && decodable) {
      // Parsed once: the value when the answer is sound JSON, else its bytes, for validateResponse to name the fault.
      const parsed = body.length === 0 ? undefined : parseJsonBody(body, 'answer');
      value = parsed === undefined ? undefined : parsed.ok ? parsed.value.value : plainJson(body);
      const checked = judgeResponse(
        request,
        {
          method,
          path,
          status,
          body: parsed?.ok === true ? value : body,
          contentType,
        },
        { allowAdditionalProperties: proxy.lenient },
      );
      provider.push(...checked.diagnostics);
      const keyed = scopeOf();
      if (clientDiagnostics.length === 0 && keyed !== undefined)
        provider.push(
          ...proxy.model.judge(operation.operationId as OperationId, request.body, status, value, keyed),
        );
    }
    const responseText =
      body.length === 0
        ? null
        : value === undefined
          ? JSON.stringify(body.toString('utf8'))
          : body.toString('utf8');
    journal(status, responseText, provider, warnings);
    proxy.recording?.add({
      method,
      path,
      query: url.includes('?') ? url.slice(url.indexOf('?') + 1) : '',
      operationId: operation?.operationId,
      apiKey,
      keyScope: scopeOf(),
      requestContentType: [head.contentType ?? []].flat()[0],
      requestBody: sentBody,
      status,
      responseContentType: contentType,
      responseBody: body,
      providerDiagnostics: provider,
    });
  };

  if (!request.bodySent) withBody(undefined);
  else
    collectBody(req, head.contentLength, proxy.bodyLimit, {
      bodyArrived: (read) => {
        bodyNotKept = notKeptOf(read);
        if (read.ok) withBody(read.value);
        else if ('gone' in read)
          journal(0, null, noDiagnostics); // nobody to answer
        else refuse(read.error);
      },
    });
}

/** What an `Authorization` the proxy could not read as `Token <key>` matched, as the journal shows it. */
const notAKey = 'not read as an API key';
/** What a key matched before any answer to it named its environment (`api_environment_tag`). */
const keyNotPlaced =
  "a key whose environment no answer has shown yet (the proxy learns it from the service's answers)";

/** What JSON.parse makes of an answer parseJsonBody refused (a repeated key, a byte order mark...), if anything. */
function plainJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

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
