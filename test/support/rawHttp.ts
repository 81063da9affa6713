import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Answer } from './http.js';

/**
 * What a raw client sends, in order: bytes, a pause in ms, a wait for a promise (a barrier shared by racing
 * clients), or an abrupt abort (the socket is destroyed).
 */
export type Piece =
  | string
  | Buffer
  | { readonly pause: number }
  | { readonly wait: () => Promise<unknown> }
  | { readonly abort: true };

/**
 * Header pairs exactly as given (duplicates, odd case and order kept), or a record whose array values repeat the
 * header.
 */
export type RawHeaders =
  | ReadonlyArray<readonly [string, string]>
  | Readonly<Record<string, string | readonly string[]>>;

const pairsOf = (headers: RawHeaders): ReadonlyArray<readonly [string, string]> =>
  Array.isArray(headers)
    ? (headers as ReadonlyArray<readonly [string, string]>)
    : Object.entries(headers).flatMap(([name, value]) =>
        [value].flat().map((v): readonly [string, string] => [name, v]),
      );

/** The bytes of a request head, headers exactly as given (duplicates, odd case and order kept). */
export function requestHead(method: string, path: string, headers: RawHeaders): Buffer {
  const lines = [
    `${method} ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    ...pairsOf(headers).map(([n, v]) => `${n}: ${v}`),
  ];
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

/** A whole request with `Content-Length` set from the body, unless the headers already frame it. */
export function rawRequest(
  method: string,
  path: string,
  headers: RawHeaders,
  body?: string | Buffer,
): Buffer {
  const bytes = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const pairs = pairsOf(headers);
  const framed = pairs.some(([n]) => /^(content-length|transfer-encoding)$/i.test(n));
  const all: RawHeaders =
    bytes === undefined || framed ? pairs : [...pairs, ['Content-Length', String(bytes.length)]];
  return Buffer.concat([requestHead(method, path, all), bytes ?? Buffer.alloc(0)]);
}

/** Splits bytes into `size`-byte pieces with a pause between them (a slow or large upload). */
export function trickle(bytes: Buffer, size: number, pause: number): Piece[] {
  const pieces: Piece[] = [];
  for (let at = 0; at < bytes.length; at += size) pieces.push(bytes.subarray(at, at + size), { pause });
  return pieces;
}

export interface RawExchange {
  /** Every complete response received, in order (pipelined requests get several). */
  readonly responses: readonly Answer[];
  /** Milliseconds from the first byte sent to the first byte received (-1: nothing arrived). */
  readonly firstByteMs: number;
  /** Bytes the client had written when the first response byte arrived, and in all. */
  readonly sentBeforeAnswer: number;
  readonly sent: number;
  /** Bytes the client meant to send. */
  readonly planned: number;
  /** How the exchange ended. */
  readonly ended: 'closed' | 'complete' | 'timeout' | 'aborted';
}

/**
 * Sends the pieces over a fresh TCP connection and collects the answers. Stops at `expect` complete responses,
 * when the server closes, or after `timeoutMs` (never hangs). Writes stop quietly once the server has closed.
 */
export async function exchange(
  port: number,
  pieces: readonly Piece[],
  options: { readonly timeoutMs?: number; readonly expect?: number } = {},
): Promise<RawExchange> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const expect = options.expect ?? 1;
  const socket = connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const started = performance.now();
  const planned = pieces.reduce(
    (n, p) => n + (typeof p === 'string' || Buffer.isBuffer(p) ? bytesOf(p) : 0),
    0,
  );
  let received = Buffer.alloc(0);
  let firstByteMs = -1;
  let sent = 0;
  let sentBeforeAnswer = -1;
  let responses: Answer[] = [];
  let ended: RawExchange['ended'] | undefined;
  const finished = new Promise<void>((resolve) => {
    const finish = (how: RawExchange['ended']): void => {
      ended ??= how;
      resolve();
    };
    socket.on('data', (chunk: Buffer) => {
      if (firstByteMs < 0) {
        firstByteMs = performance.now() - started;
        sentBeforeAnswer = sent;
      }
      received = Buffer.concat([received, chunk]);
      responses = parseResponses(received);
      if (responses.length >= expect) finish('complete');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish('closed'));
    setTimeout(() => finish('timeout'), timeoutMs).unref();
  });

  for (const piece of pieces) {
    if (ended !== undefined || socket.destroyed) break;
    if (typeof piece === 'string' || Buffer.isBuffer(piece)) {
      const ok = socket.write(piece);
      sent += bytesOf(piece);
      if (!ok) await Promise.race([new Promise((r) => socket.once('drain', r)), finished]);
    } else if ('pause' in piece) {
      await Promise.race([sleep(piece.pause), finished]);
    } else if ('wait' in piece) {
      await Promise.race([piece.wait(), finished]);
    } else {
      ended = 'aborted';
      socket.destroy();
    }
  }
  await finished;
  socket.destroy();
  return {
    responses,
    firstByteMs,
    sentBeforeAnswer: sentBeforeAnswer < 0 ? sent : sentBeforeAnswer,
    sent,
    planned,
    ended: ended ?? 'closed',
  };
}

const bytesOf = (piece: string | Buffer): number =>
  typeof piece === 'string' ? Buffer.byteLength(piece, 'latin1') : piece.length;

/**
 * Sends bytes exactly as given over a fresh connection to `url`'s port and reads the first whole answer; rejects
 * when none arrives in `timeoutMs` or the server closes before one is complete.
 */
export async function sendRaw(url: string, bytes: string | Buffer, timeoutMs = 5_000): Promise<Answer> {
  const result = await exchange(Number(new URL(url).port), [bytes], { timeoutMs });
  const answer = result.responses[0];
  if (answer === undefined)
    throw new Error(result.ended === 'timeout' ? 'no answer in time' : `incomplete answer (${result.ended})`);
  return answer;
}

/** The complete HTTP/1.1 responses at the start of `bytes` (the mock always sends Content-Length). */
export function parseResponses(bytes: Buffer): Answer[] {
  const responses: Answer[] = [];
  let at = 0;
  for (;;) {
    const headEnd = bytes.indexOf('\r\n\r\n', at, 'latin1');
    if (headEnd < 0) return responses;
    const [statusLine = '', ...lines] = bytes.subarray(at, headEnd).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const bodyStart = headEnd + 4;
    const framed = headers['transfer-encoding'] === 'chunked' ? dechunk(bytes, bodyStart) : undefined;
    if (headers['transfer-encoding'] === 'chunked' && framed === undefined) return responses;
    const length = framed?.consumed ?? Number(headers['content-length'] ?? 0);
    if (bytes.length < bodyStart + length) return responses;
    const text = (framed?.body ?? bytes.subarray(bodyStart, bodyStart + length)).toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    responses.push({
      status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0),
      reason: statusLine.split(' ').slice(2).join(' '),
      headers,
      text,
      body,
    });
    at = bodyStart + length;
  }
}

/**
 * Sends every request over its own connection, all held back by one byte until each connection has sent the
 * rest; then releases the last bytes together, so that the requests reach the server at the same moment.
 */
export async function race(port: number, requests: readonly Buffer[], timeoutMs = 20_000): Promise<Answer[]> {
  let release: () => void = () => undefined;
  const barrier = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = 0;
  let allHeld: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    allHeld = resolve;
  });
  const heldBack: Piece = {
    wait: () => {
      held++;
      if (held === requests.length) allHeld();
      return barrier;
    },
  };
  const exchanges = requests.map((bytes) =>
    exchange(port, [bytes.subarray(0, -1), heldBack, bytes.subarray(-1)], { timeoutMs }),
  );
  await Promise.race([ready, sleep(timeoutMs)]);
  release();
  const results = await Promise.all(exchanges);
  return results.map((r, i) => {
    const response = r.responses[0];
    if (response === undefined) throw new Error(`racing request ${i} got no answer (${r.ended})`);
    return response;
  });
}

/** A chunked body starting at `start`: its bytes and how many bytes it took, or undefined when incomplete. */
function dechunk(bytes: Buffer, start: number): { body: Buffer; consumed: number } | undefined {
  const parts: Buffer[] = [];
  let at = start;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at, 'latin1');
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size) || bytes.length < lineEnd + 2 + size + 2) return undefined;
    if (size === 0) return { body: Buffer.concat(parts), consumed: lineEnd + 4 - start };
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
