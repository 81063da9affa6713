import type { ApiError } from '../errors.js';
import type { Diagnostic } from '../validate/diagnostic.js';
import { lowerCaseHeaders } from '../validate/headers.js';
import { findOperation } from './findOperation.js';
import { Pipeline } from './pipeline.js';
import { PipelineRequest } from './pipelineRequest.js';

/** The library's way: no keys (only the form of Authorization), no limits, every problem named. */
const library = new Pipeline({ checkLimits: null });
const noKeys = { bodyLimit: Number.POSITIVE_INFINITY };

export interface RequestToValidate {
  readonly method: string;
  /** The request path; a query string is refused, as the mock refuses it (the service takes no query parameters). */
  readonly path: string;
  /**
   * Header names in any case; values as strings or numbers (or arrays for repeated headers). A plain object (Node's
   * `IncomingHttpHeaders`, or `OutgoingHttpHeaders` from `clientRequest.getHeaders()`), or what HTTP clients hold
   * headers in: a `Headers` or `Map`, `[name, value]` pairs, Node's flat `rawHeaders`.
   */
  readonly headers?:
    | Readonly<Record<string, string | number | readonly string[] | undefined>>
    | Iterable<readonly [string, string]>
    | readonly string[];
  /** The parsed JSON body, or its raw text (string or bytes), or undefined when none was sent. */
  readonly body?: unknown;
}

export interface RequestValidation {
  readonly ok: boolean;
  readonly operationId?: string;
  readonly diagnostics: readonly Diagnostic[];
  /**
   * Legal but risky values, which the mock accepts and reports in `X-Mock-Notice` (an integer literal beyond
   * 2^53 - 1 in JSON text, which JavaScript clients round). They never make `ok` false.
   */
  readonly warnings: readonly Diagnostic[];
}

/**
 * Checks a request the way the mock does, through the same steps (route, `Authorization: Token <key>` form, no query,
 * media type, parse, value checks, schema), without a server, key or store. Returns diagnostics; never throws, whatever it is given.
 */
export function validateRequest(request: RequestToValidate): RequestValidation {
  try {
    return check(request);
  } catch (error) {
    return unreadable(
      `the request could not be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** A request given without its path: named, with the path of a `url` given instead when there is one. */
function missingPath({ url }: { url?: unknown }): string {
  const form = 'e.g. { method: "GET", path: "/api/user", headers: {...}, body: {...} }';
  if (typeof url !== 'string' && !(url instanceof URL))
    return `validateRequest needs the request's path: ${form}`;
  let path: string;
  try {
    const parsed = new URL(String(url), 'http://localhost');
    path = parsed.pathname + parsed.search;
  } catch {
    path = String(url);
  }
  return `validateRequest reads the request's path, not its url: give { path: ${JSON.stringify(path)} } (the path and query, without the scheme and host), ${form}`;
}

const unreadable = (message: string): RequestValidation => ({
  ok: false,
  diagnostics: [{ code: 'UNREADABLE_REQUEST', path: '', message }],
  warnings: [],
});

function check(given: RequestToValidate): RequestValidation {
  if (given === null || typeof given !== 'object' || typeof given.method !== 'string')
    return unreadable(
      'validateRequest takes one request object { method, path, headers, body }, e.g. { method: "GET", path: "/api/user", headers: {...}, body: {...} }',
    );
  if (given.path === undefined) return unreadable(missingPath(given as { url?: unknown }));
  const headers = lowerCaseHeaders(given.headers);
  const body = given.body;
  const target = String(given.path);
  const mark = target.indexOf('?');
  const request = new PipelineRequest(
    given.method.toUpperCase(),
    mark === -1 ? target : target.slice(0, mark),
    {
      query: mark === -1 ? undefined : target.slice(mark + 1),
      authorization: [headers.authorization ?? []].flat(),
      contentType: headers['content-type'],
      contentEncoding: [headers['content-encoding'] ?? []].flat().join(',') || undefined,
      bodySent: body !== undefined,
      userAgent: [headers['user-agent'] ?? []].flat()[0],
    },
  );
  const routed = findOperation(request);
  if ('code' in routed) return { ok: false, diagnostics: routed.details, warnings: [] };
  // The server's steps in the server's order; where it stops at the first problem, the library goes on to find
  // every problem it can, so one call names them all.
  const found: ApiError[] = [];
  const raw = typeof body === 'string' || body instanceof Uint8Array ? body : undefined;
  if (raw === undefined) routed.body = body; // a value rather than text: taken as parsed, walked by checkValues
  library.check(routed, noKeys, raw, found);
  return {
    ok: found.length === 0,
    operationId: routed.operation.operationId,
    diagnostics: found.flatMap((error) => error.details),
    warnings: routed.warnings,
  };
}
