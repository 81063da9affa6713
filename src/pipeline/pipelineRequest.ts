import type { KeyOwner } from '../runtime/keyRing.js';
import type { MockContext } from '../runtime/mockContext.js';
import type { Operation } from '../spec/operations.js';
import type { Diagnostic } from '../spec/types.js';

/** What an entry point gives the steps: keys (none: only the form of `Authorization` is judged), groups, limits. */
export type Surface = Pick<MockContext, 'bodyLimit'> &
  Partial<Pick<MockContext, 'keys' | 'store' | 'rateLimiter'>>;

export const noWarnings: readonly Diagnostic[] = [];

/** What arrives with a request besides its method and path (the HTTP adapter's `RequestHead` is one). */
export type ArrivedRequest = Pick<PipelineRequest, 'bodySent'> &
  Partial<
    Pick<
      PipelineRequest,
      'authorization' | 'contentType' | 'contentEncoding' | 'query' | 'contentLength' | 'userAgent'
    >
  >;

/**
 * One request on its way through the pipeline: what arrived (method, path, the headers it is judged by), and what
 * each step has found so far. Every entry point makes one: the server's `ServiceExchange` is one.
 */
export class PipelineRequest {
  /** Every `Authorization` value as sent, in order (a repeated header is a mistake to report). */
  readonly authorization: readonly string[];
  /** The Content-Type as sent; every value when the header is repeated (a mistake to report). */
  readonly contentType: string | readonly string[] | undefined;
  readonly contentEncoding: string | undefined;
  /** The query string after `?` (the service takes none), or undefined when the target has no `?`. */
  readonly query: string | undefined;
  /** Whether a body was sent at all (over HTTP: Content-Length above zero, or chunked). */
  readonly bodySent: boolean;
  /** The declared Content-Length, when there is one (Node's parser has checked it is a number). */
  readonly contentLength: number | undefined;
  /** The client's User-Agent, when sent: advice is worded for that client (curl, Node). */
  readonly userAgent: string | undefined;
  /** Set by `findOperation` (the stage `Routed`). */
  operation: Operation | undefined = undefined;
  /** Set by `authenticate` when a key ring is given and knows the key (the stage `Owned`). */
  owner: KeyOwner | undefined = undefined;
  /** The body as JSON text, as it was sent (set by `parseBody`). */
  text: string | undefined = undefined;
  /** The parsed body; after a failed parse, the start of what arrived, as a string. */
  body: unknown = undefined;
  /** The text alone showed that the value passes `checkValues` (see `ParsedJson`). */
  clean = false;
  /** Legal but risky values of the body, accepted and reported (`X-Mock-Notice`, the journal). */
  warnings: readonly Diagnostic[] = noWarnings;

  constructor(
    readonly method: string,
    /** The path without its query string. */
    readonly path: string,
    arrived: ArrivedRequest,
  ) {
    this.authorization = arrived.authorization ?? [];
    this.contentType = arrived.contentType;
    this.contentEncoding = arrived.contentEncoding;
    this.query = arrived.query;
    this.bodySent = arrived.bodySent;
    this.contentLength = arrived.contentLength;
    this.userAgent = arrived.userAgent;
  }
}

/** A request the route has found an operation for: the steps after `findOperation` take this stage. */
export type Routed<R extends PipelineRequest = PipelineRequest> = R & { readonly operation: Operation };

/** A routed request whose key is known: what the store serves (its `ServiceCall`). */
export type Owned<R extends PipelineRequest = PipelineRequest> = Routed<R> & { readonly owner: KeyOwner };

export const isOwned = <R extends PipelineRequest>(request: Routed<R>): request is Owned<R> =>
  request.owner !== undefined;
