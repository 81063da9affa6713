import type { IncomingMessage } from 'node:http';
import { payloadTooLarge } from '../pipeline/pipeline.js';
import type { Result } from '../result.js';
import { errorAt } from '../validate/diagnostic.js';

/** The client went away before its body was whole: there is nobody to answer. */
const clientGone = { ok: false, gone: true } as const;
export type ClientGone = typeof clientGone;

/** The whole body, the error to answer, or `ClientGone`. */
export type BodyResult = Result<Buffer> | ClientGone;

/** Where a collected body goes: `bodyArrived` is called once. */
export interface BodySink {
  bodyArrived(result: BodyResult): void;
}

/**
 * Reads the whole body up to `limit` bytes and hands it to `sink` once (a declared Content-Length over the limit is
 * the pipeline's `checkLimits`, before any read), or `clientGone` when the client went away mid-body.
 *
 * Hand-written rather than `raw-body`: this is on every request's path, and raw-body's general stream handling
 * (five listeners added and removed, a decoder check, a deferred callback) cost a fifth of the mock's CPU time per
 * request. Node's parser already frames the body by Content-Length or chunked encoding; this only gathers it. The
 * three listeners are shared functions that find their state on the request, so a request allocates no closures
 * for them; they stay until the request is collected.
 */
export function collectBody(
  req: IncomingMessage,
  contentLength: number | undefined,
  limit: number,
  sink: BodySink,
): void {
  const expected = contentLength ?? -1;
  (req as Collected)[collecting] = { sink, limit, expected, chunks: [], received: 0, settled: false };
  req.on('data', onData);
  req.on('end', onEnd);
  // Node destroys the request with an error when the client goes away before the body is complete.
  req.on('error', onError);
}

interface Collecting {
  readonly sink: BodySink;
  readonly limit: number;
  /** The declared Content-Length, or -1 (chunked). */
  readonly expected: number;
  readonly chunks: Buffer[];
  received: number;
  settled: boolean;
}

const collecting = Symbol('collecting');
type Collected = IncomingMessage & { [collecting]: Collecting };

function settle(state: Collecting, result: BodyResult): void {
  if (state.settled) return;
  state.settled = true;
  state.sink.bodyArrived(result);
}

function onData(this: Collected, chunk: Buffer): void {
  const state = this[collecting];
  state.received += chunk.length;
  if (state.received > state.limit) {
    this.removeListener('data', onData); // the rest is read and dropped; the answer closes the connection
    settle(state, { ok: false, error: payloadTooLarge(state.limit) });
    return;
  }
  state.chunks.push(chunk);
}

function onEnd(this: Collected): void {
  const state = this[collecting];
  if (state.expected !== -1 && state.received !== state.expected) {
    const message =
      'the body is shorter or longer than its Content-Length; let the HTTP client set Content-Length';
    settle(state, { ok: false, error: errorAt('HTTP_MALFORMED', '/headers/content-length', message) });
    return;
  }
  const { chunks, received } = state;
  settle(state, {
    ok: true,
    value: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received),
  });
}

function onError(this: Collected): void {
  settle(this[collecting], clientGone);
}

/** `collectBody` as a promise, for callers off the hot path (the admin API). */
export const readBody = (
  req: IncomingMessage,
  contentLength: number | undefined,
  limit: number,
): Promise<BodyResult> =>
  new Promise((resolve) => collectBody(req, contentLength, limit, { bodyArrived: resolve }));
