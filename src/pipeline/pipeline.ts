import { type ApiError, apiError, errorFromDiagnostics } from '../errors.js';
import { type Diagnostic, diagnostic, errorAt, pointer } from '../validate/diagnostic.js';
import { checkContentEncoding, checkContentType } from '../validate/headers.js';
import { parseJsonBody } from '../validate/jsonText.js';
import { inspectJsonValue } from '../validate/jsonValue.js';
import { requestFieldNames, smallestBody } from '../validate/mistakes.js';
import { checkRequestSchema } from '../validate/schemaChecks.js';
import { authenticate } from './authenticate.js';
import type { PipelineRequest, Routed, Surface } from './pipelineRequest.js';

/** One step over the routed record: the error to answer, or undefined to go on. */
type Step<R extends PipelineRequest, S extends Surface> = (
  request: Routed<R>,
  surface: S,
) => ApiError | undefined;

/** The request's way after the route, in order, written once: the header stage, then (`parseBody` first) the body's. */
const steps = { authenticate, checkQuery, checkLimits, checkMediaType, checkValues, checkSchema };
const headStage = ['authenticate', 'checkQuery', 'checkLimits', 'checkMediaType'] as const;
const bodyStage = ['checkValues', 'checkSchema'] as const;

/**
 * One entry point's way: the steps above, with its `own` in place of some (null leaves one out), made once per kind
 * of entry point. The first problem stops a stage (a server's answer); given `found` (the library), the header stage
 * goes on to name every problem in it. The body stage always stops at its first: each step needs the one before.
 */
export class Pipeline<R extends PipelineRequest, S extends Surface = Surface> {
  readonly #head: readonly Step<R, S>[];
  readonly #body: readonly Step<R, S>[];

  constructor(own: { readonly [N in keyof typeof steps]?: Step<R, S> | null }) {
    const stage = (names: readonly (keyof typeof steps)[]): Step<R, S>[] =>
      names.flatMap((name) => (own[name] === null ? [] : [own[name] ?? steps[name]]));
    this.#head = stage(headStage);
    this.#body = stage(bodyStage);
  }

  /** The header stage, decided before any body is read: the first problem, or with `found` every one. */
  head(request: Routed<R>, surface: S, found?: ApiError[]): ApiError | undefined {
    for (let i = 0; i < this.#head.length; i++) {
      const error = (this.#head[i] as Step<R, S>)(request, surface);
      if (error === undefined) continue;
      if (found === undefined) return error;
      found.push(error);
    }
    return found?.[0];
  }

  /** The body stage: `raw` parsed (undefined: the record holds the body as a value), then each step, to the first problem. */
  body(
    request: Routed<R>,
    surface: S,
    raw: Uint8Array | string | undefined,
    found?: ApiError[],
  ): ApiError | undefined {
    let error = raw === undefined ? undefined : parseBody(request, raw);
    for (let i = 0; error === undefined && i < this.#body.length; i++)
      error = (this.#body[i] as Step<R, S>)(request, surface);
    if (error !== undefined) found?.push(error);
    return error;
  }

  /**
   * A request whose body is at hand (the library's `validateRequest`): the header stage, then, for a request that
   * sent a body, the body stage, as the exchange runs them around a body still arriving. With `found`, the body is
   * judged whatever the header stage found, so that one call names every problem it can.
   */
  check(
    request: Routed<R>,
    surface: S,
    raw: Uint8Array | string | undefined,
    found?: ApiError[],
  ): ApiError | undefined {
    const refused = this.head(request, surface, found);
    if ((refused !== undefined && found === undefined) || !request.bodySent) return refused;
    const problem = this.body(request, surface, raw, found);
    return refused ?? problem;
  }
}

/**
 * The limits step: the rate limit of the caller's key (when the mock has one; needs `owner`), and a declared
 * Content-Length over the body limit, refused before any byte of the body is read.
 */
export function checkLimits(request: PipelineRequest, surface: Surface): ApiError | undefined {
  const { rateLimiter, bodyLimit } = surface;
  const owner = request.owner;
  if (rateLimiter !== undefined && owner !== undefined) {
    const wait = rateLimiter.take(`${owner.tenant}/${owner.environment}`);
    if (wait !== undefined) {
      const message = `more than ${rateLimiter.perMinute} requests in a minute from this API key; wait ${wait} s (Retry-After) and back off`;
      return apiError('RATE_LIMITED', message, [], { headers: { 'retry-after': String(wait) } });
    }
  }
  if ((request.contentLength ?? 0) > bodyLimit) return payloadTooLarge(bodyLimit);
  return undefined;
}

/** A body over the limit: answered, then the connection is closed (the rest of the body is not read). */
export function payloadTooLarge(limit: number): ApiError {
  const message = `the body is larger than the limit of ${limit} bytes; send a smaller body (the limit is the mock's or the proxy's own, whichever answered, set with its --body-limit)`;
  return errorAt('PAYLOAD_TOO_LARGE', '/body', message, { connection: 'close' });
}

/**
 * The media type step: a body must be sent, uncompressed, as `application/json` in UTF-8. Decided from the headers,
 * so a body that cannot be read as JSON is refused before it is read.
 */
function checkMediaType(request: Routed): ApiError | undefined {
  if (!request.bodySent) return errorAt('BODY_MISSING', '/body', bodyMissing(request));
  const encoding = checkContentEncoding(request.contentEncoding);
  const type = checkContentType(request.contentType);
  if (encoding === undefined && type === undefined) return undefined;
  const found = [type, encoding].filter((d) => d !== undefined);
  // Two Content-Type headers are a malformed request (400), not a media type refused (415).
  return errorFromDiagnostics(
    type?.code === 'HTTP_MALFORMED' ? 'HTTP_MALFORMED' : 'UNSUPPORTED_MEDIA_TYPE',
    found,
  );
}

/**
 * What to do about a missing body, in the words of the client that sent the request: curl (its User-Agent) gets
 * the command with `-d`; any other client the general form first, then, for a GET, the advice for Node's clients,
 * whose own choices lose a GET's body (fetch and browsers refuse to send one; node:http sends it unframed, without
 * Content-Length or chunked framing, unless the caller sets one).
 */
function bodyMissing(request: Routed): string {
  const { method, path, operation } = request;
  const example = smallestBody(operation);
  const missing = `${method} ${path} needs a JSON body and arrived without one`;
  if (request.userAgent?.startsWith('curl/') === true)
    return `${missing}; give curl the body with -d and its type: curl -X ${method} …${path} -H 'Authorization: Token <API_KEY>' -H 'Content-Type: application/json' -d '${example ?? '{…}'}'`;
  const general = `${missing}; send it with "Content-Type: application/json" and a Content-Length header${example === undefined ? '' : `, e.g. ${example}`}`;
  if (method !== 'GET') return general;
  return `${general}. From Node: fetch cannot send a GET body; use undici.request, which frames it, or node:http with the Content-Length header set yourself (Buffer.byteLength(body)): node:http sends a GET body unframed, even through end(body), so it is not read as the body`;
}

/**
 * The query step: the service takes no query parameters (every operation's input is its JSON body), so a query
 * string is refused rather than ignored: a field sent there would otherwise be reported missing from the body with
 * no word of where it went. A bare `?` carries nothing and passes.
 */
function checkQuery(request: Routed): ApiError | undefined {
  const query = request.query;
  if (query === undefined || query === '') return undefined;
  const fields = requestFieldNames(request.operation);
  // Each name once, as the client meant it (`+` a space, percent-escapes decoded); an empty part names nothing.
  const names = new Set(new URLSearchParams(query).keys());
  if (names.size === 0) return undefined;
  const found: Diagnostic[] = [...names].map((name) =>
    diagnostic(
      'UNKNOWN_QUERY_PARAMETER',
      pointer('/query', name),
      fields.includes(name)
        ? `the query has "${name}", but ${request.method} ${request.path} takes no query parameters: send "${name}" in the JSON body`
        : `the query has "${name}", but ${request.method} ${request.path} takes no query parameters; remove it (the request's fields are ${fields.map((f) => `"${f}"`).join(', ')}, in the JSON body)`,
    ),
  );
  return errorFromDiagnostics('VALIDATION_FAILED', found);
}

/** The schema step: the body against its operation's request schema (after `checkValues`: an object). */
function checkSchema(request: Routed): ApiError | undefined {
  const { operation } = request;
  const found = checkRequestSchema(operation, request.body);
  if (found.length === 0) return undefined;
  // A risky value the schema refuses is not accepted after all: its warning ("the mock accepts it") would be untrue.
  if (request.warnings.length > 0)
    request.warnings = request.warnings.filter((w) => !found.some((d) => d.path === w.path));
  return errorFromDiagnostics(
    'VALIDATION_FAILED',
    found,
    `the request body does not match ${operation.operationId}: `,
  );
}

/**
 * The value checks step: what JSON Schema cannot say (prototype-poisoning keys, lone surrogates, numbers out of
 * range, depth; skipped when the text already showed none can be there, `clean`), then that the body is an object.
 */
function checkValues(request: PipelineRequest): ApiError | undefined {
  const body = request.body;
  if (!request.clean) {
    const found = inspectJsonValue(body);
    const first = found[0];
    if (first !== undefined) return errorFromDiagnostics(first.code, found);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    const kind = body === null ? 'null' : Array.isArray(body) ? 'an array' : `a ${typeof body}`;
    return errorAt('BODY_NOT_OBJECT', '/body', `body must be a JSON object, not ${kind}`);
  }
  return undefined;
}

/** How much of a body that is not JSON the journal keeps. */
const keptOfUnparsed = 4096;

/**
 * The parse step: the body's bytes (or text) as JSON, by the rules of `parseJsonBody` (UTF-8 without a byte order
 * mark, no duplicate key, nesting within bounds). Sets `text`, `body`, `clean` and `warnings`; after a failure,
 * `body` holds the start of what arrived, as a string.
 */
export function parseBody(request: PipelineRequest, raw: Uint8Array | string): ApiError | undefined {
  const parsed = parseJsonBody(raw);
  if (!parsed.ok) {
    const received = typeof raw === 'string' ? raw : Buffer.from(raw).toString('utf8', 0, keptOfUnparsed);
    request.body = received.slice(0, keptOfUnparsed);
    return parsed.error;
  }
  const { value, text, clean, warnings } = parsed.value;
  request.text = text;
  request.body = value;
  request.clean = clean;
  if (warnings !== undefined) request.warnings = warnings;
  return undefined;
}
