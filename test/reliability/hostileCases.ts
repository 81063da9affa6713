import { gzipSync } from 'node:zlib';
import { customerKey } from '../support/http.js';
import { type Piece, type RawHeaders, rawRequest, requestHead, trickle } from '../support/rawHttp.js';

/** The timeouts the hostile-input server runs with, small so that slow senders are cut off quickly. */
export const hostileTimeouts = { headersTimeout: 800, requestTimeout: 1500 } as const;
/** Node checks for expired requests this often (`connectionsCheckingInterval` in src/mockServer.ts). */
const checkingInterval = 250;

export interface HostileCase {
  readonly name: string;
  /** What the client sends; `token` is the user group token of a group that exists before the case. */
  readonly pieces: (token: string) => Piece[];
  /** The status and error code the document promises, or `null` when no answer is possible (the client left). */
  readonly status: number | null;
  readonly code?: string;
  /** The request's method and path, for checking the answer against the document (default GET /api/user). */
  readonly method?: string;
  readonly path?: string;
  /** The answer must arrive while the client is still sending. */
  readonly answersEarly?: boolean;
  /** The answer must arrive in this window (ms after the first byte), e.g. a timeout's. */
  readonly within?: readonly [number, number];
  /** Extra headers the answer must carry. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Further complete answers expected on the same connection (pipelining). */
  readonly more?: readonly number[];
}

const auth = (key = customerKey): readonly [string, string] => ['Authorization', `Token ${key}`];
const json: readonly [string, string] = ['Content-Type', 'application/json'];
const headers: RawHeaders = [auth(), json];
const get = (body: string | Buffer, extra: RawHeaders = headers): Piece[] => [
  rawRequest('GET', '/api/user', extra, body),
];
const valid = '{"user_group_id":"hostile","name":"Hostile"}';
/** A body with `properties` set to raw JSON text. */
const withProperties = (text: string): string =>
  `{"user_group_id":"hostile","name":"H","properties":${text}}`;
const utf8With = (bytes: readonly number[]): Buffer =>
  Buffer.concat([Buffer.from('{"user_group_id":"a'), Buffer.from(bytes), Buffer.from('","name":"x"}')]);
const twoMiB = 2 * 1024 * 1024;
const deep = (depth: number, open: string, close: string): string =>
  withProperties(`{"a":${open.repeat(depth)}${close.repeat(depth)}}`);

/**
 * Hostile input, each case with the answer the document promises. Every case starts from a fresh server with
 * one group in a database file; afterwards the server must still serve and nothing may have changed.
 */
export const hostileCases: readonly HostileCase[] = [
  {
    name: 'malformed JSON',
    pieces: () => get('{"user_group_id": "a", "name": }'),
    status: 400,
    code: 'BODY_INVALID_JSON',
  },
  {
    name: 'trailing garbage after the object',
    pieces: () => get(`${valid}xyz`),
    status: 400,
    code: 'BODY_INVALID_JSON',
  },
  {
    name: 'two JSON objects in one body',
    pieces: () => get(`${valid}${valid}`),
    status: 400,
    code: 'BODY_INVALID_JSON',
  },
  {
    name: 'an unescaped tab inside a string',
    pieces: () => get('{"user_group_id":"a\tb","name":"x"}'),
    status: 400,
    code: 'BODY_INVALID_JSON',
  },
  {
    name: 'a UTF-8 byte order mark',
    pieces: () => get(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(valid)])),
    status: 400,
    code: 'BODY_INVALID_ENCODING',
  },
  { name: 'an empty body (Content-Length: 0)', pieces: () => get(''), status: 400, code: 'BODY_MISSING' },
  {
    name: 'no body and no Content-Length',
    pieces: () => [requestHead('GET', '/api/user', headers)],
    status: 400,
    code: 'BODY_MISSING',
  },
  { name: 'a body of whitespace', pieces: () => get(' \r\n\t '), status: 400, code: 'BODY_MISSING' },
  { name: 'an array root', pieces: () => get(`[${valid}]`), status: 400, code: 'BODY_NOT_OBJECT' },
  { name: 'a string root', pieces: () => get('"hostile"'), status: 400, code: 'BODY_NOT_OBJECT' },
  { name: 'a null root', pieces: () => get('null'), status: 400, code: 'BODY_NOT_OBJECT' },
  { name: 'a number root', pieces: () => get('42'), status: 400, code: 'BODY_NOT_OBJECT' },
  {
    name: 'a 2 MiB body with its Content-Length',
    pieces: () => [
      requestHead('GET', '/api/user', [...headers, ['Content-Length', String(twoMiB)]]),
      ...trickle(Buffer.alloc(twoMiB, 0x20), 64 * 1024, 2),
    ],
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    answersEarly: true,
  },
  {
    name: 'a 2 MiB chunked body',
    pieces: () => [
      requestHead('GET', '/api/user', [...headers, ['Transfer-Encoding', 'chunked']]),
      ...Array.from({ length: 32 }, (): Piece[] => [
        `10000\r\n${' '.repeat(0x10000)}\r\n`,
        { pause: 2 },
      ]).flat(),
      '0\r\n\r\n',
    ],
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    answersEarly: true,
  },
  {
    name: 'arrays nested 100,000 deep',
    pieces: () => get(deep(100_000, '[', ']')),
    status: 400,
    code: 'BODY_TOO_DEEP',
  },
  {
    name: 'objects nested 100,000 deep',
    pieces: () => get(deep(100_000, '{"a":', '}').replace(/\{"a":\}/, '{"a":1}')),
    status: 400,
    code: 'BODY_TOO_DEEP',
  },
  {
    name: 'a __proto__ key',
    pieces: () => get('{"__proto__":{"isAdmin":true},"user_group_id":"a","name":"x"}'),
    status: 400,
    code: 'BODY_FORBIDDEN_KEY',
  },
  {
    name: 'constructor.prototype in properties',
    pieces: () => get(withProperties('{"constructor":{"prototype":{"polluted":true}}}')),
    status: 400,
    code: 'BODY_FORBIDDEN_KEY',
  },
  {
    name: 'a __proto__ key inside mapping',
    pieces: () => get('{"user_group_id":"a","name":"x","mapping":{"__proto__":"1"}}'),
    status: 400,
    code: 'BODY_FORBIDDEN_KEY',
  },
  {
    name: 'a duplicate key',
    pieces: () => get('{"user_group_id":"a","user_group_id":"b","name":"x"}'),
    status: 400,
    code: 'BODY_DUPLICATE_KEY',
  },
  {
    name: 'a duplicate key spelled with an escape',
    pieces: () => get('{"user_group_id":"a","name":"x","n\\u0061me":"y"}'),
    status: 400,
    code: 'BODY_DUPLICATE_KEY',
  },
  {
    name: 'a duplicate key inside properties',
    pieces: () => get(withProperties('{"plan":"a","plan":"b"}')),
    status: 400,
    code: 'BODY_DUPLICATE_KEY',
  },
  {
    name: 'a byte that is not UTF-8',
    pieces: () => get(utf8With([0xff])),
    status: 400,
    code: 'BODY_INVALID_ENCODING',
  },
  {
    name: 'an overlong UTF-8 encoding',
    pieces: () => get(utf8With([0xc0, 0xaf])),
    status: 400,
    code: 'BODY_INVALID_ENCODING',
  },
  {
    name: 'a surrogate encoded as UTF-8 bytes',
    pieces: () => get(utf8With([0xed, 0xa0, 0x80])),
    status: 400,
    code: 'BODY_INVALID_ENCODING',
  },
  {
    name: 'a lone surrogate escape in the id',
    pieces: () => get('{"user_group_id":"a\\ud800","name":"x"}'),
    status: 400,
    code: 'BODY_INVALID_ENCODING',
  },
  {
    name: 'a lone low surrogate in a properties key',
    pieces: () => get(withProperties('{"\\udc00":1}')),
    status: 400,
    code: 'BODY_INVALID_ENCODING',
  },
  {
    name: 'NUL in the id',
    pieces: () => get('{"user_group_id":"a\\u0000b","name":"x"}'),
    status: 400,
    code: 'VALIDATION_FAILED',
  },
  {
    name: 'an escape character in the name',
    pieces: () => get('{"user_group_id":"a","name":"x\\u001b[31m"}'),
    status: 400,
    code: 'VALIDATION_FAILED',
  },
  {
    name: 'DEL in the id',
    pieces: () => get('{"user_group_id":"a\\u007f","name":"x"}'),
    status: 400,
    code: 'VALIDATION_FAILED',
  },
  {
    name: '1e400 in properties',
    pieces: () => get(withProperties('{"n":1e400}')),
    status: 400,
    code: 'BODY_NUMBER_OUT_OF_RANGE',
  },
  {
    name: '-1e400 in properties',
    pieces: () => get(withProperties('{"n":[-1e400]}')),
    status: 400,
    code: 'BODY_NUMBER_OUT_OF_RANGE',
  },
  {
    name: 'an integer beyond 2^53 - 1 (legal) beside 1e400',
    pieces: () => get(withProperties('{"id":9007199254740993,"n":1e400}')),
    status: 400,
    code: 'BODY_NUMBER_OUT_OF_RANGE',
  },
  {
    name: 'a non-ASCII unknown field',
    pieces: () => get('{"user_group_id":"a","name":"x","nämé":"y"}'),
    status: 400,
    code: 'VALIDATION_FAILED',
  },
  {
    name: 'Content-Type text/plain',
    pieces: () => get(valid, [auth(), ['Content-Type', 'text/plain']]),
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'no Content-Type',
    pieces: () => get(valid, [auth()]),
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'JSON in UTF-16',
    pieces: () => get(valid, [auth(), ['Content-Type', 'application/json; charset=utf-16']]),
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'Content-Encoding: gzip',
    pieces: () => get(gzipSync(valid), [...headers, ['Content-Encoding', 'gzip']]),
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'Content-Length together with chunked',
    pieces: () => [
      requestHead('GET', '/api/user', [
        ...headers,
        ['Content-Length', String(valid.length)],
        ['Transfer-Encoding', 'chunked'],
      ]),
      `${valid.length.toString(16)}\r\n${valid}\r\n0\r\n\r\n`,
    ],
    status: 400,
    code: 'HTTP_MALFORMED',
  },
  {
    name: 'two Content-Lengths',
    pieces: () => [
      requestHead('GET', '/api/user', [
        ...headers,
        ['Content-Length', String(valid.length)],
        ['Content-Length', '5'],
      ]),
      valid,
    ],
    status: 400,
    code: 'HTTP_MALFORMED',
  },
  {
    name: 'a malformed chunk size',
    pieces: () => [
      requestHead('GET', '/api/user', [...headers, ['Transfer-Encoding', 'chunked']]),
      `zz\r\n${valid}\r\n0\r\n\r\n`,
    ],
    status: 400,
    code: 'HTTP_MALFORMED',
  },
  {
    name: 'a request line that is not HTTP',
    pieces: () => ['HELLO THERE\r\n\r\n'],
    status: 400,
    code: 'HTTP_MALFORMED',
  },
  {
    name: 'an HTTP/1.1 request without Host',
    pieces: () => [
      `GET /api/user HTTP/1.1\r\nAuthorization: Token ${customerKey}\r\nContent-Type: application/json\r\nContent-Length: ${valid.length}\r\n\r\n${valid}`,
    ],
    status: 400,
    code: 'HTTP_MALFORMED',
  },
  {
    name: 'a non-ASCII header name',
    pieces: () => get(valid, [...headers, ['X-Nämé', '1']]),
    status: 400,
    code: 'HTTP_MALFORMED',
  },
  {
    name: 'headers over 16 KiB',
    pieces: () => get(valid, [...headers, ['X-Padding', 'p'.repeat(17 * 1024)]]),
    status: 431,
    code: 'HEADERS_TOO_LARGE',
  },
  {
    name: 'headers sent slowly (slowloris)',
    pieces: () => [
      'GET /api/user HTTP/1.1\r\n',
      ...Array.from({ length: 40 }, (_, i): Piece[] => [{ pause: 100 }, `X-Slow-${i}: 1\r\n`]).flat(),
    ],
    status: 408,
    code: 'REQUEST_TIMEOUT',
    within: [hostileTimeouts.headersTimeout - 100, hostileTimeouts.headersTimeout + checkingInterval + 700],
  },
  {
    name: 'a body sent slowly',
    pieces: () => [
      requestHead('GET', '/api/user', [...headers, ['Content-Length', '100']]),
      '{"user_group_id":',
      { pause: 5000 },
    ],
    status: 408,
    code: 'REQUEST_TIMEOUT',
    within: [hostileTimeouts.requestTimeout - 100, hostileTimeouts.requestTimeout + checkingInterval + 700],
  },
  {
    name: 'a client aborting mid-body',
    pieces: () => [
      requestHead('GET', '/api/user', [...headers, ['Content-Length', '100']]),
      '{"user_group_id":"a",',
      { pause: 50 },
      { abort: true },
    ],
    status: null,
  },
  {
    name: 'a client aborting mid-headers',
    pieces: () => ['GET /api/user HTTP/1.1\r\nAuthorization: To', { pause: 50 }, { abort: true }],
    status: null,
  },
  {
    name: 'no Authorization',
    pieces: () => get(valid, [json]),
    status: 401,
    code: 'AUTH_MISSING',
    headers: { 'www-authenticate': 'Token' },
  },
  {
    name: 'the Bearer scheme',
    pieces: () => get(valid, [['Authorization', `Bearer ${customerKey}`], json]),
    status: 401,
    code: 'AUTH_BEARER',
    headers: { 'www-authenticate': 'Token' },
  },
  {
    name: 'a lower-case scheme (schemes are case-insensitive, RFC 9110): accepted, so an unknown id answers 404',
    pieces: () => [
      rawRequest(
        'PUT',
        '/api/user',
        [['authorization', `token ${customerKey}`], json],
        '{"user_group_id":"nobody","name":"x"}',
      ),
    ],
    status: 404,
    code: 'GROUP_NOT_FOUND',
    method: 'PUT',
  },
  {
    name: 'the scheme word alone',
    pieces: () => get(valid, [['Authorization', 'Token'], json]),
    status: 401,
    code: 'AUTH_SCHEME',
  },
  {
    name: 'two Authorization headers',
    pieces: () => get(valid, [auth(), auth('dev-testing-key'), json]),
    status: 400,
    code: 'AUTH_DUPLICATE',
  },
  {
    name: 'an unknown API key',
    pieces: () => get(valid, [auth('not-a-key'), json]),
    status: 401,
    code: 'AUTH_UNKNOWN_KEY',
  },
  {
    name: 'a user group token as the API key',
    pieces: (token) => get(valid, [auth(token), json]),
    status: 401,
    code: 'AUTH_GROUP_TOKEN_AS_KEY',
  },
  {
    name: 'UTF-8 bytes in the API key',
    // requestHead writes header bytes as latin1: this sends the UTF-8 bytes of "kéy-ü" unchanged.
    pieces: () =>
      get(valid, [['Authorization', Buffer.from('Token kéy-ü', 'utf8').toString('latin1')], json]),
    status: 401,
    code: 'AUTH_UNKNOWN_KEY',
  },
  {
    name: 'a method the path does not answer',
    pieces: () => [rawRequest('DELETE', '/api/user', headers, valid)],
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    method: 'DELETE',
    headers: { allow: 'GET, PUT, POST' },
  },
  {
    name: 'a path the service does not have',
    pieces: () => [rawRequest('GET', '/api/users', headers, valid)],
    status: 404,
    code: 'ROUTE_NOT_FOUND',
    path: '/api/users',
  },
  {
    name: 'a malformed body pipelined before a good read on one connection',
    pieces: () => [
      Buffer.concat([
        rawRequest('POST', '/api/user', headers, '{"current_token":'),
        rawRequest('GET', '/api/user', headers, '{"user_group_id":"sentinel","name":"Sentinel"}'),
      ]),
    ],
    status: 400,
    code: 'BODY_INVALID_JSON',
    method: 'POST',
    more: [200],
  },
];
