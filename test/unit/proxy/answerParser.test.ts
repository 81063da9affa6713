import { describe, expect, it } from 'vitest';
import { AnswerParser, type AnswerRead } from '../../../src/proxy/answerParser.js';

const limits = { headBytes: 200, bodyBytes: 100 };

/** Feeds `text` in pieces of `piece` bytes (all at once by default), then the connection's end if `end`. */
function read(text: string, options: { method?: string; piece?: number; end?: boolean } = {}): AnswerRead {
  const parser = new AnswerParser(options.method ?? 'GET', limits);
  const bytes = Buffer.from(text, 'latin1');
  const piece = options.piece ?? bytes.length;
  let step: AnswerRead = { state: 'more' };
  for (let at = 0; at < bytes.length && step.state === 'more'; at += piece)
    step = parser.push(bytes.subarray(at, at + piece));
  return options.end === true && step.state === 'more' ? parser.end() : step;
}

const done = (step: AnswerRead) => {
  if (step.state !== 'done') throw new Error(`expected a whole answer, got ${JSON.stringify(step)}`);
  return {
    status: step.head.status,
    reason: step.head.reason,
    headers: step.head.rawHeaders,
    body: step.body.toString('latin1'),
    reusable: step.reusable,
  };
};

describe('AnswerParser', () => {
  it.each([1, 2, 7, 1000])('reads an answer framed by Content-Length fed %i byte(s) at a time', (piece) => {
    const answer =
      'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Odd:  spaced\t \r\nContent-Length: 11\r\n\r\n{"ok":true}';
    expect(done(read(answer, { piece }))).toEqual({
      status: 200,
      reason: 'OK',
      headers: ['Content-Type', 'application/json', 'X-Odd', 'spaced', 'Content-Length', '11'],
      body: '{"ok":true}',
      reusable: true,
    });
  });

  it.each([1, 3, 1000])(
    'joins a chunked body, extensions and trailers dropped, fed %i byte(s) at a time',
    (piece) => {
      const answer =
        'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\nA\r\n, chunked!\r\n0\r\nX-Trailer: yes\r\n\r\n';
      const read1 = done(read(answer, { piece }));
      expect(read1.body).toBe('hello, chunked!');
      expect(read1.reusable).toBe(true);
    },
  );

  it('drops interim answers (100 Continue, 103 Early Hints) and reads the final one', () => {
    const answer =
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}';
    expect(done(read(answer, { piece: 5 }))).toMatchObject({
      status: 201,
      headers: ['Content-Length', '2'],
      body: '{}',
    });
  });

  it.each([
    ['after HEAD', 'HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n', 'HEAD'],
    ['for 204', 'HTTP/1.1 204 No Content\r\nContent-Length: 50\r\n\r\n', 'GET'],
    ['for 304', 'HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n', 'GET'],
  ])('reads no body %s, whatever the headers announce', (_, answer, method) => {
    expect(done(read(answer, { method }))).toMatchObject({ body: '', reusable: true });
  });

  it('reads an answer without length to the end of the connection, and does not reuse that connection', () => {
    const parser = new AnswerParser('GET', limits);
    expect(parser.push(Buffer.from('HTTP/1.1 200 OK\r\n\r\nsome'))).toEqual({ state: 'more' });
    expect(parser.push(Buffer.from(' bytes'))).toEqual({ state: 'more' });
    expect(done(parser.end())).toMatchObject({ body: 'some bytes', reusable: false });
  });

  it('reads to the end of the connection when the last transfer coding is not chunked', () => {
    expect(done(read('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nzz', { end: true }))).toMatchObject({
      body: 'zz',
      reusable: false,
    });
  });

  it.each([
    ['HTTP/1.0', 'HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}'],
    ['Connection: close', 'HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 2\r\n\r\n{}'],
    ['bytes after the answer', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}HTTP/1.1 200 OK'],
  ])('does not reuse the connection after an answer with %s', (_, answer) => {
    expect(done(read(answer))).toMatchObject({ body: '{}', reusable: false });
  });

  it('accepts repeated Content-Length values that agree', () => {
    expect(
      done(read('HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\n{}')),
    ).toMatchObject({ body: '{}' });
  });

  it.each([
    [
      'both Transfer-Encoding and Content-Length',
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n',
      'both Transfer-Encoding and Content-Length',
    ],
    [
      'Content-Length values that disagree',
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
      'Content-Length values that disagree: "2, 3"',
    ],
    [
      'a Content-Length that is not a number',
      'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n',
      'Content-Length that is not a number: "-1"',
    ],
    [
      'a status line that is not HTTP/1.x',
      'HTTP/2 200\r\n\r\n',
      'status line that is not HTTP/1.x: "HTTP/2 200"',
    ],
    ['a status code out of range', 'HTTP/1.1 20 OK\r\n\r\n', 'status line that is not HTTP/1.x'],
    [
      'a space before the colon',
      'HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\n{}',
      'malformed header line: "Content-Length : 2"',
    ],
    ['a control character in a value', 'HTTP/1.1 200 OK\r\nX-A: a\u0001b\r\n\r\n', 'malformed header line'],
    [
      'obsolete line folding',
      'HTTP/1.1 200 OK\r\nX-A: a\r\n  b\r\nContent-Length: 0\r\n\r\n',
      'obsolete line folding',
    ],
    ['a bare LF', 'HTTP/1.1 200 OK\nContent-Length: 0\n\n', 'bare LF'],
    ['a bare LF among CRLF lines', 'HTTP/1.1 200 OK\r\nX-A: a\nContent-Length: 0\r\n\r\n', 'bare LF'],
    [
      '101 Switching Protocols',
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n',
      '101 Switching Protocols',
    ],
    [
      'a chunk-size that is not hexadecimal',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      'chunk-size line that is not hexadecimal: "zz"',
    ],
    [
      'a chunk longer than its size',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n',
      'chunk longer than its size line said',
    ],
    [
      'a malformed trailer',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nnot a field\r\n\r\n',
      'malformed trailer field',
    ],
  ])('refuses an answer with %s as malformed, naming it', (_, answer, why) => {
    for (const piece of [1, 1000]) {
      const step = read(answer, { piece });
      expect(step.state).toBe('failed');
      expect(step).toMatchObject({ problem: 'malformed' });
      expect(step.state === 'failed' && step.why).toContain(why);
    }
  });

  it.each([
    [
      'a head over the limit',
      `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(300)}`,
      'head (status line and headers) or a chunk or trailer line over 200 bytes',
    ],
    [
      'a Content-Length over the body limit',
      'HTTP/1.1 200 OK\r\nContent-Length: 101\r\n\r\n',
      'body larger than the limit of 100 bytes',
    ],
    [
      'chunks over the body limit',
      `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n${'a'.repeat(64)}\r\n40\r\n${'a'.repeat(64)}\r\n0\r\n\r\n`,
      'body larger than the limit of 100 bytes',
    ],
    [
      'an answer without length over the body limit',
      `HTTP/1.1 200 OK\r\n\r\n${'a'.repeat(101)}`,
      'body larger than the limit of 100 bytes',
    ],
  ])('stops at %s', (_, answer, why) => {
    const step = read(answer, { piece: 16 });
    expect(step).toEqual({ state: 'failed', problem: 'too large', why: expect.stringContaining(why) });
  });

  it.each([
    ['without answering', ''],
    ['before the whole answer', 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{"a"'],
    ['before the whole answer', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel'],
    ['before the whole answer', 'HTTP/1.1 200 OK\r\nContent-'],
  ])('says the connection closed %s when it ends too soon', (why, answer) => {
    expect(read(answer, { end: true })).toEqual({
      state: 'failed',
      problem: 'cut short',
      why: `closed the connection ${why}`,
    });
  });
});
