import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { call } from '../../support/http.js';
import { useProxies, useRawTargets } from '../../support/proxy.js';

const proxies = useProxies();
const rawTargets = useRawTargets();

const getA = { name: 'A', user_group_id: 'a' };
const head = (lines: string): string => `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n${lines}`;

/** Answers HTTP/1.1 forbids (RFC 9112) or leaves ambiguous: Node's own parser refuses each. */
const malformed = [
  ['a NUL in a chunk extension', head('Transfer-Encoding: chunked\r\n\r\n2;a=\0b\r\n{}\r\n0\r\n\r\n')],
  ['a 0x01 in a chunk extension', head('Transfer-Encoding: chunked\r\n\r\n2;a=\u0001b\r\n{}\r\n0\r\n\r\n')],
  [
    'whitespace before ; in a chunk-size line',
    head('Transfer-Encoding: chunked\r\n\r\n2 ;a=b\r\n{}\r\n0\r\n\r\n'),
  ],
  ['two identical Content-Length lines', head('Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}')],
  ['two identical Content-Length lines of 0', head('Content-Length: 0\r\nContent-Length: 0\r\n\r\n')],
  ['Content-Length: 2, 2', head('Content-Length: 2, 2\r\n\r\n{}')],
  ['Content-Length values that disagree', head('Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}')],
  [
    'Transfer-Encoding with Content-Length',
    head('Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n'),
  ],
  [
    'Content-Length after Transfer-Encoding',
    head('Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n'),
  ],
  ['lines ended by a bare LF', 'HTTP/1.1 200 OK\nContent-Type: application/json\nContent-Length: 2\n\n{}'],
  ['obsolete line folding', head('X-Folded: a\r\n  b\r\nContent-Length: 2\r\n\r\n{}')],
  ['a status code of two digits', 'HTTP/1.1 20 OK\r\nContent-Length: 2\r\n\r\n{}'],
  ['an HTTP/2 status line', 'HTTP/2 200\r\nContent-Length: 2\r\n\r\n{}'],
  ['a control character in a header value', head('X-Odd: a\u0001b\r\nContent-Length: 2\r\n\r\n{}')],
  ['a space before a header’s colon', head('Content-Length : 2\r\n\r\n{}')],
  ['a Content-Length that is not a number', head('Content-Length: -1\r\n\r\n')],
  ['a chunk-size that is not hexadecimal', head('Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n')],
] as const;

/** Answers Node reads: the proxy passes each on, and Node reads the proxy's answer with the same status. */
const wellFormed = [
  ['a 304 with a Content-Length', 'HTTP/1.1 304 Not Modified\r\nContent-Length: 189\r\n\r\n'],
  ['a 204 with a Content-Length', 'HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n'],
  [
    'an interim 103 before the answer',
    `HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n${head('Content-Length: 2\r\n\r\n{}')}`,
  ],
  ['a chunked answer with an extension', head('Transfer-Encoding: chunked\r\n\r\n2;a=b\r\n{}\r\n0\r\n\r\n')],
  ['an answer ended by the connection’s end', head('\r\n{}')],
] as const;

/** What Node's own HTTP client makes of an answer: the status it read, or the code of the error it refused it with. */
function nodeReads(url: string): Promise<{ status: number } | { refused: string }> {
  return new Promise((resolve) => {
    const request = httpRequest(`${url}/api/user`, { agent: false }, (answer) => {
      answer.on('error', (error: NodeJS.ErrnoException) => resolve({ refused: error.code ?? error.message }));
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0 }));
      answer.resume();
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ refused: error.code ?? error.message }));
    request.end();
  });
}

describe('an answer Node’s own parser refuses', () => {
  it.each(malformed)('is refused by the proxy too with a 502 naming the fault: %s', async (_, bytes) => {
    const target = await rawTargets((socket) => socket.end(Buffer.from(bytes, 'latin1')));
    const node = await nodeReads(target.url);
    expect(node).toEqual({ refused: expect.stringMatching(/^HPE_/) });

    const proxy = await proxies({ target: target.url });
    const answer = await call(proxy.url, 'GET', '/api/user', { body: getA });
    expect(answer.status).toBe(502);
    expect(answer.body.error.code).toBe('UPSTREAM_UNREACHABLE');
    expect(answer.body.error.message).toMatch(
      /sent an answer that breaks HTTP\/1\.1 framing \((HTTPParserError|UND_ERR_RES_CONTENT_LENGTH_MISMATCH): .+\), so it cannot be passed on \(the service may have acted on the request\)$/,
    );
    expect(await proxy.requests({ invalid: true })).toMatchObject([{ status: 502, fault: 'provider' }]);
  });
});

describe('an answer Node’s own parser reads', () => {
  it.each(wellFormed)('is passed on by the proxy with its status: %s', async (_, bytes) => {
    const target = await rawTargets((socket) => socket.end(Buffer.from(bytes, 'latin1')));
    const node = await nodeReads(target.url);
    expect(node).toHaveProperty('status');

    const proxy = await proxies({ target: target.url });
    expect(await nodeReads(proxy.url)).toEqual(node);
  });
});
