import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  CutShort,
  closedUnder,
  failure,
  keptAlive,
  Stopping,
  TooLarge,
} from '../../../src/proxy/upstreamErrors.js';

const where = 'http://127.0.0.1:1/api/user';
const socketInfo = (bytesRead: number) => ({
  localAddress: '127.0.0.1',
  localPort: 2,
  remoteAddress: '127.0.0.1',
  remotePort: 1,
  remoteFamily: 'IPv4',
  timeout: undefined,
  bytesWritten: 10,
  bytesRead,
});
/** undici's SocketError as undici builds it, with what it read on the connection (its types leave that out). */
const socketError = (message: string, socket: ReturnType<typeof socketInfo> | null): errors.SocketError =>
  new (errors.SocketError as unknown as new (message: string, socket: unknown) => errors.SocketError)(
    message,
    socket,
  );
const systemError = (code: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`connect ${code} 127.0.0.1:1`), { code });

/**
 * Each undici error class (and code) the proxy tells apart, built from undici's own exports: an upgrade that renamed
 * a class, changed its code or its base class fails here, naming the case.
 */
const classified: [string, Error, { code: string; says: RegExp }][] = [
  [
    'HTTPParserError',
    new errors.HTTPParserError('Response does not match the HTTP/1.1 protocol (Invalid header value char)'),
    {
      code: 'UPSTREAM_UNREACHABLE',
      says: /breaks HTTP\/1\.1 framing \(HTTPParserError: .*Invalid header value char\)\)/,
    },
  ],
  [
    'ResponseContentLengthMismatchError',
    new errors.ResponseContentLengthMismatchError(),
    {
      code: 'UPSTREAM_UNREACHABLE',
      says: /breaks HTTP\/1\.1 framing \(UND_ERR_RES_CONTENT_LENGTH_MISMATCH: /,
    },
  ],
  [
    'HeadersOverflowError',
    new errors.HeadersOverflowError(),
    { code: 'UPSTREAM_UNREACHABLE', says: /answered a head \(status line and headers\) over 16384 bytes/ },
  ],
  [
    'ClientDestroyedError',
    new errors.ClientDestroyedError(),
    { code: 'UPSTREAM_TIMEOUT', says: /when the proxy stopped/ },
  ],
  [
    'ClientClosedError',
    new errors.ClientClosedError(),
    { code: 'UPSTREAM_TIMEOUT', says: /when the proxy stopped/ },
  ],
  ['the proxy stopping', new Stopping(), { code: 'UPSTREAM_TIMEOUT', says: /when the proxy stopped/ }],
  [
    'SocketError',
    socketError('other side closed', socketInfo(0)),
    { code: 'UPSTREAM_UNREACHABLE', says: /closed the connection without answering/ },
  ],
  [
    'ECONNRESET',
    systemError('ECONNRESET'),
    { code: 'UPSTREAM_UNREACHABLE', says: /closed the connection without answering/ },
  ],
  [
    'EPIPE',
    systemError('EPIPE'),
    { code: 'UPSTREAM_UNREACHABLE', says: /closed the connection without answering/ },
  ],
  [
    'an answer cut short',
    new CutShort(),
    { code: 'UPSTREAM_UNREACHABLE', says: /closed the connection without answering/ },
  ],
  [
    'an answer over the limit',
    new TooLarge('answered a body larger than the limit'),
    { code: 'UPSTREAM_UNREACHABLE', says: /answered a body larger than the limit$/ },
  ],
  [
    'ECONNREFUSED',
    systemError('ECONNREFUSED'),
    { code: 'UPSTREAM_UNREACHABLE', says: /refused the connection/ },
  ],
  [
    'ENOTFOUND',
    systemError('ENOTFOUND'),
    { code: 'UPSTREAM_UNREACHABLE', says: /host name that does not resolve/ },
  ],
  [
    'an untrusted certificate',
    systemError('UNABLE_TO_VERIFY_LEAF_SIGNATURE'),
    { code: 'UPSTREAM_UNREACHABLE', says: /certificate this proxy does not trust/ },
  ],
];

describe('an upstream failure', () => {
  it.each(classified)('is told apart by its class or code: %s', (_, error, { code, says }) => {
    const answer = failure(where, error, false, 16_384);
    expect(answer.code).toBe(code);
    expect(answer.message).toMatch(says);
  });

  it('counts undici’s SocketError and the resets as the connection closing under the request, and no other', () => {
    expect(closedUnder(socketError('closed', socketInfo(0)))).toBe(true);
    expect(closedUnder(systemError('ECONNRESET'))).toBe(true);
    expect(closedUnder(new CutShort())).toBe(true);
    expect(closedUnder(new errors.HTTPParserError('bad'))).toBe(false);
    expect(closedUnder(new errors.ResponseContentLengthMismatchError())).toBe(false);
    expect(closedUnder(new errors.ClientDestroyedError())).toBe(false);
  });

  it('takes a connection as kept alive only when undici’s SocketError says bytes were read on it', () => {
    expect(keptAlive(socketError('closed', socketInfo(120)))).toBe(true);
    expect(keptAlive(socketError('closed', socketInfo(0)))).toBe(false);
    expect(keptAlive(socketError('closed', null))).toBe(false);
    expect(keptAlive(systemError('ECONNRESET'))).toBe(false);
  });

  it('keeps undici’s codes for the classes it maps', () => {
    expect(socketError('closed', null).code).toBe('UND_ERR_SOCKET');
    expect(new errors.ResponseContentLengthMismatchError().code).toBe('UND_ERR_RES_CONTENT_LENGTH_MISMATCH');
    expect(new errors.HeadersOverflowError().code).toBe('UND_ERR_HEADERS_OVERFLOW');
    expect(new errors.ClientDestroyedError().code).toBe('UND_ERR_DESTROYED');
    expect(new errors.ClientClosedError().code).toBe('UND_ERR_CLOSED');
  });
});
