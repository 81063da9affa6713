import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { type Answer, customerKey, useMocks } from '../../support/http.js';
import { exchange, rawRequest, requestHead } from '../../support/rawHttp.js';

/** A body whose Content-Length was framed wrong, and what each answer on the connection says about it. */
describe('a body framed wrong on a keep-alive connection', () => {
  const mock = useMocks();
  const headers = {
    Authorization: `Token ${customerKey}`,
    'Content-Type': 'application/json',
    Connection: 'keep-alive',
  };
  const body = '{"name":"Café Zürich","user_group_id":"cl-1"}';
  const port = (url: string): number => Number(new URL(url).port);

  it('answers the cut request first, saying Content-Length counts bytes, then names the leftover bytes', async () => {
    const server = await mock();
    const framed = Buffer.concat([
      requestHead('GET', '/api/user', { ...headers, 'Content-Length': String(body.length) }),
      Buffer.from(body, 'utf8'),
    ]);
    expect(Buffer.byteLength(body)).toBe(body.length + 2);
    const result = await exchange(port(server.url), [framed], { expect: 2 });
    const [first, second] = result.responses as [Answer, Answer];
    expect(first.status).toBe(400);
    expect(first.body.error.code).toBe('BODY_INVALID_JSON');
    expect(first.body.error.message).toContain(
      'Content-Length must count bytes (Buffer.byteLength(body)), not characters (body.length)',
    );
    expect(second.status).toBe(400);
    expect(second.body.error.code).toBe('HTTP_MALFORMED');
    expect(second.body.error.message).toContain("that request's Content-Length did not match its body");
    expect(second.body.error.message).not.toContain('Transfer-Encoding');
  });

  it('keeps the framing hint for a request that is itself malformed', async () => {
    const server = await mock();
    const both = rawRequest(
      'GET',
      '/api/user',
      { ...headers, 'Content-Length': '2', 'Transfer-Encoding': 'chunked' },
      '0\r\n\r\n',
    );
    const [answer] = (await exchange(port(server.url), [both])).responses;
    expect(answer?.body.error.code).toBe('HTTP_MALFORMED');
    expect(answer?.body.error.message).toContain('both Content-Length and Transfer-Encoding');
  });

  it.each([
    ['get /api/user HTTP/1.1\r\nHost: x\r\n\r\n', 'an HTTP method, which is case-sensitive and in capitals'],
    [
      '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n',
      'https:// reaches this plain-HTTP port: use http://',
    ],
    ['GET /api/user HTTP/9\r\nHost: x\r\n\r\n', 'must end with the version HTTP/1.1'],
    ['GET /api/user HTTP/1.1\nHost: x\n\n', 'each line with CRLF'],
    ['GET /api/user HTTP/1.1\r\nHost: x\r\n Folded: y\r\n\r\n', 'a folded header'],
    ['PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'the HTTP/2 preface: this server speaks HTTP/1.1 only'],
  ])('names the mistake in a request that is not HTTP/1.1: %j', async (bytes, says) => {
    const server = await mock();
    const [answer] = (await exchange(port(server.url), [Buffer.from(bytes, 'latin1')])).responses;
    expect(answer?.body.error.code).toBe('HTTP_MALFORMED');
    expect(answer?.body.error.message).toContain(says);
    expect(answer?.body.error.message).not.toContain('Content-Length');
  });

  it('says how to send a GET body that node:http wrote without Content-Length', async () => {
    const server = await mock();
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const sent = request(
        `${server.url}/api/user`,
        {
          method: 'GET',
          headers: { authorization: `Token ${customerKey}`, 'content-type': 'application/json' },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      sent.on('error', reject);
      // end(body) frames nothing on a GET either: node:http adds Content-Length to a GET only when it is set.
      sent.end('{"name":"n","user_group_id":"a1"}');
    });
    expect(answer.status).toBe(400);
    const error = (JSON.parse(answer.text) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('BODY_MISSING');
    expect(error.message).toContain('node:http with the Content-Length header set yourself');
    expect(error.message).toContain('even through end(body)');
  });
});
