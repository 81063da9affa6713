import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import type { ApiError } from '../../../src/errors.js';
import {
  forward,
  stopForwarding,
  type TargetAnswer,
  target as targetOf,
} from '../../../src/proxy/forward.js';
import type { Result } from '../../../src/result.js';
import { call, jsonHeaders } from '../../support/http.js';
import { useProxies, useRawTargets } from '../../support/proxy.js';

const proxies = useProxies();

const rawTarget = useRawTargets();

const groupJson = JSON.stringify({
  success: 1,
  new_user_group: true,
  user_group: { team_id: 1, token: 'a'.repeat(64), name: 'A', provided_id: 'a', properties: null },
});
const ok = (extra = ''): string =>
  `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(groupJson)}\r\n\r\n${groupJson}`;
const getA = { name: 'A', user_group_id: 'a' };

describe('the proxy’s connections to its target', () => {
  it('carries one request after another on one kept-alive connection', async () => {
    const target = await rawTarget((socket) => socket.write(ok()));
    const proxy = await proxies({ target: target.url });
    for (let i = 0; i < 3; i++)
      expect((await call(proxy.url, 'GET', '/api/user', { body: getA })).status).toBe(200);
    expect(target.connections()).toBe(1);
    expect(target.requests.map((r) => r.connection)).toEqual([0, 0, 0]);
    expect(target.requests[0]?.head).toMatch(/^GET \/api\/user HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\n/i);
  });

  it.each([
    ['Connection: close', 'Connection: close\r\n'],
    ['Keep-Alive: timeout=1 (kept under a second: not at all)', 'Keep-Alive: timeout=1\r\n'],
  ])('opens a new connection for the next request after an answer with %s', async (_, header) => {
    const target = await rawTarget((socket) => socket.write(ok(header)));
    const proxy = await proxies({ target: target.url });
    for (let i = 0; i < 2; i++)
      expect((await call(proxy.url, 'GET', '/api/user', { body: getA })).status).toBe(200);
    expect(target.requests.map((r) => r.connection)).toEqual([0, 1]);
  });

  it('passes a chunked answer on whole, framed by Content-Length, and keeps the connection', async () => {
    const half = Math.floor(groupJson.length / 2);
    const target = await rawTarget((socket) =>
      socket.write(
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${half.toString(16)}\r\n${groupJson.slice(0, half)}\r\n${(groupJson.length - half).toString(16)}\r\n${groupJson.slice(half)}\r\n0\r\n\r\n`,
      ),
    );
    const proxy = await proxies({ target: target.url });
    for (let i = 0; i < 2; i++) {
      const answer = await call(proxy.url, 'GET', '/api/user', { body: getA });
      expect(answer.text).toBe(groupJson);
      expect(answer.headers['content-length']).toBe(String(groupJson.length));
      expect(answer.headers['transfer-encoding']).toBeUndefined();
    }
    expect(target.connections()).toBe(1);
    expect((await proxy.requests())[0]?.diagnostics).toEqual([]);
  });

  it('passes on the final answer after an interim 103 Early Hints', async () => {
    const target = await rawTarget((socket) =>
      socket.write(`HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n${ok()}`),
    );
    const proxy = await proxies({ target: target.url });
    const answer = await call(proxy.url, 'GET', '/api/user', { body: getA });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(groupJson);
  });

  it('opens a new connection after a kept one received bytes nobody asked for', async () => {
    const target = await rawTarget((socket, _, index) => {
      socket.write(ok());
      if (index === 0) setTimeout(() => socket.write('HTTP/1.1 200 OK\r\n'), 20);
    });
    const proxy = await proxies({ target: target.url });
    expect((await call(proxy.url, 'GET', '/api/user', { body: getA })).status).toBe(200);
    await vi.waitFor(() => expect(target.sockets()).toHaveLength(0));
    expect((await call(proxy.url, 'GET', '/api/user', { body: getA })).status).toBe(200);
    expect(target.requests.map((r) => r.connection)).toEqual([0, 1]);
  });

  it('passes on an answer the target ends by closing the connection', async () => {
    const target = await rawTarget((socket) =>
      socket.end(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n${groupJson}`),
    );
    const proxy = await proxies({ target: target.url });
    for (let i = 0; i < 2; i++)
      expect((await call(proxy.url, 'GET', '/api/user', { body: getA })).text).toBe(groupJson);
    expect(target.connections()).toBe(2);
  });

  it.each([
    {
      wrong: 'a malformed answer',
      bytes: `HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
      says: 'sent an answer that breaks HTTP/1.1 framing (UND_ERR_RES_CONTENT_LENGTH_MISMATCH: Response body length does not match content-length header), so it cannot be passed on (the service may have acted on the request)',
    },
    {
      wrong: 'a body over the limit',
      bytes: `HTTP/1.1 200 OK\r\nContent-Length: 70000\r\n\r\n`,
      says: 'answered a body larger than the limit of 65536 bytes (4 times the request body limit, at least 64 KiB), so it was not passed on (the service may have acted on the request); raise the bodyLimit option (--body-limit) if the service really answers that much',
    },
    {
      wrong: 'chunks over the body limit',
      bytes: `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${`258\r\n${'a'.repeat(600)}\r\n`.repeat(110)}0\r\n\r\n`,
      says: 'answered a body larger than the limit of 65536 bytes (4 times the request body limit, at least 64 KiB), so it was not passed on (the service may have acted on the request); raise the bodyLimit option (--body-limit) if the service really answers that much',
    },
    {
      wrong: 'a head over 16 KiB',
      bytes: `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(17_000)}\r\nContent-Length: 2\r\n\r\n{}`,
      says: 'answered a head (status line and headers) over 16384 bytes, so it was not passed on (the service may have acted on the request)',
    },
    {
      wrong: 'an answer cut short',
      bytes: `HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{"success":`,
      says: 'closed the connection before the whole answer; the service may or may not have acted on the request',
    },
  ])(
    'answers 502 naming the target and the fault for $wrong, and serves the next request',
    async ({ bytes, says }) => {
      const target = await rawTarget((socket, _, index) => {
        if (index === 0) socket.end(bytes);
        else socket.write(ok());
      });
      const proxy = await proxies({ target: target.url, bodyLimit: 1000 });
      const failed = await call(proxy.url, 'GET', '/api/user', { body: getA });
      expect(failed.status).toBe(502);
      expect(failed.body.error.code).toBe('UPSTREAM_UNREACHABLE');
      expect(failed.body.error.message).toBe(`the target ${target.url}/api/user ${says}`);
      expect((await proxy.requests({ invalid: true }))[0]).toMatchObject({ status: 502, fault: 'provider' });
      expect((await call(proxy.url, 'GET', '/api/user', { body: getA })).status).toBe(200);
    },
  );

  it('does not take an answer read to the connection’s end as whole when the target resets the connection', async () => {
    const target = await rawTarget((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"success":');
      setTimeout(() => socket.resetAndDestroy(), 20);
    });
    const proxy = await proxies({ target: target.url });
    const failed = await call(proxy.url, 'GET', '/api/user', { body: getA });
    expect(failed.status).toBe(502);
    expect(failed.body.error.message).toBe(
      `the target ${target.url}/api/user closed the connection before the whole answer; the service may or may not have acted on the request`,
    );
  });

  it('names the address the request went to, the target’s base path included', async () => {
    const target = await rawTarget((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"success":');
      setTimeout(() => socket.resetAndDestroy(), 20);
    });
    const proxy = await proxies({ target: `${target.url}/v1/` });
    const failed = await call(proxy.url, 'GET', '/api/user', { body: getA });
    expect(target.requests[0]?.head).toMatch(/^GET \/v1\/api\/user HTTP\/1\.1\r\n/);
    expect(failed.body.error.message).toBe(
      `the target ${target.url}/v1/api/user closed the connection before the whole answer; the service may or may not have acted on the request`,
    );
  });

  it.each([
    { method: 'GET', path: '/api/user', body: getA, status: 200, requests: 3 },
    {
      method: 'POST',
      path: '/api/user',
      body: { user_group_id: 'a' },
      status: 502,
      requests: 2,
    },
  ])(
    'sends a $method again on a new connection only if idempotent, when a kept-alive one closes unanswered',
    async ({ method, path, body, status, requests }) => {
      // The first request is answered; the second arrives on the kept connection as the target closes it.
      const target = await rawTarget((socket, request, index) => {
        if (index === 1 && request.connection === 0) socket.destroy();
        else socket.write(ok());
      });
      const proxy = await proxies({ target: target.url });
      expect((await call(proxy.url, 'GET', '/api/user', { body: getA })).status).toBe(200);
      const second = await call(proxy.url, method, path, { body });
      expect(second.status).toBe(status);
      if (status === 502)
        expect(second.body.error.message).toBe(
          `the target ${target.url}/api/user closed its kept-alive connection as the request arrived, without answering; a POST is not sent again, since the service may have acted on it: retry it if that is safe`,
        );
      expect(target.requests).toHaveLength(requests);
      expect(target.requests.map((r) => r.connection)).toEqual(requests === 3 ? [0, 0, 1] : [0, 0]);
      // The answer to a request sent again stands, with a warning: the first connection's close may have been the
      // service's fault, which the second answer would otherwise hide.
      const [first, entry] = await proxy.requests();
      expect(first?.warnings).toEqual([]);
      if (status === 200)
        expect(entry?.warnings).toEqual([
          {
            code: 'UPSTREAM_SENT_AGAIN',
            path: '/status',
            message: `the target ${target.url}/api/user closed its kept-alive connection without answering this GET, so the proxy sent it again on a new connection (HTTP allows it for a method that is safe to repeat) and this is the second answer; if the service dropped the connection after reading the request (a crash, a reset), this answer hides that: its log says which`,
          },
        ]);
      else expect(entry?.warnings).toEqual([]);
    },
  );
});

describe('answers the proxy passes back as they came and judges as the service meant them', () => {
  const gzipped = gzipSync(groupJson);
  it.each([
    { coding: 'gzip', bytes: gzipped },
    { coding: 'deflate', bytes: deflateSync(groupJson) },
    { coding: 'br', bytes: brotliCompressSync(groupJson) },
  ])('judges a $coding answer decoded, and passes its bytes on untouched', async ({ coding, bytes }) => {
    const target = await rawTarget((socket) => {
      socket.write(
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: ${coding}\r\nContent-Length: ${bytes.length}\r\n\r\n`,
      );
      socket.write(bytes);
    });
    const proxy = await proxies({ target: target.url });
    const answer = await request(`${proxy.url}/api/user`, {
      method: 'GET',
      headers: { ...jsonHeaders(), 'accept-encoding': coding },
      body: JSON.stringify(getA),
    });
    expect(answer.headers['content-encoding']).toBe(coding);
    expect(Buffer.from(await answer.body.arrayBuffer()).equals(bytes)).toBe(true);
    const [entry] = await proxy.requests();
    expect(entry?.diagnostics).toEqual([]);
    expect(entry?.warnings).toEqual([]);
    expect(entry?.responseBody).toEqual(JSON.parse(groupJson));
  });

  it.each([
    {
      coding: 'gzip',
      bytes: Buffer.from(groupJson),
      where: 'diagnostics',
      says: 'the answer says Content-Encoding "gzip" but its body is not gzip data',
    },
    {
      coding: 'zstd',
      bytes: Buffer.from('not judged'),
      where: 'warnings',
      says: 'the answer is encoded with Content-Encoding "zstd", which the proxy cannot decode (it reads gzip, deflate and br), so its body was passed on without being judged',
    },
  ])(
    'names a $coding body it cannot decode in the entry’s $where',
    async ({ coding, bytes, where, says }) => {
      const target = await rawTarget((socket) => {
        socket.write(
          `HTTP/1.1 200 OK\r\nContent-Encoding: ${coding}\r\nContent-Length: ${bytes.length}\r\n\r\n`,
        );
        socket.write(bytes);
      });
      const proxy = await proxies({ target: target.url });
      expect((await call(proxy.url, 'GET', '/api/user', { body: getA })).status).toBe(200);
      const [entry] = await proxy.requests();
      expect(entry?.[where as 'diagnostics' | 'warnings']).toEqual([
        {
          code: 'BODY_INVALID_ENCODING',
          path: '/headers/content-encoding',
          message: expect.stringContaining(says),
          // A diagnostic of the answer says so; a warning is the service's, never judged as either side's.
          ...(where === 'diagnostics' ? { about: 'answer' } : {}),
        },
      ]);
      expect(entry?.fault).toBe(where === 'diagnostics' ? 'provider' : null);
    },
  );

  it.each([
    { method: 'HEAD', head: 'HTTP/1.1 200 OK\r\nContent-Length: 189\r\n\r\n', length: '189' },
    { method: 'GET', head: 'HTTP/1.1 304 Not Modified\r\nContent-Length: 189\r\n\r\n', length: '189' },
    { method: 'GET', head: 'HTTP/1.1 204 No Content\r\n\r\n', length: undefined },
  ])('keeps the Content-Length of a bodiless answer ($method, $head)', async ({ method, head, length }) => {
    const target = await rawTarget((socket) => socket.write(head));
    const proxy = await proxies({ target: target.url });
    const answer = await request(`${proxy.url}/api/user`, {
      method: method as 'GET',
      headers: jsonHeaders(),
      ...(method === 'HEAD' ? {} : { body: JSON.stringify(getA) }),
    });
    await answer.body.dump();
    expect(answer.headers['content-length']).toBe(length);
    expect(answer.headers['transfer-encoding']).toBeUndefined();
  });
});

describe('forward when the proxy stops', () => {
  it('answers an exchange still waiting on the target 504, saying the proxy stopped, at once, and any sent after', async () => {
    const target = await rawTarget(() => undefined);
    const to = targetOf(new URL(target.url), 10_000, 1000);
    const answer = new Promise<Result<TargetAnswer, ApiError>>((resolve) =>
      forward(
        to,
        { method: 'GET', pathAndQuery: '/api/user', headers: [], body: Buffer.from('{}') },
        resolve,
      ),
    );
    await vi.waitFor(() => expect(target.requests).toHaveLength(1));
    const began = performance.now();
    stopForwarding(to);
    const got = await answer;
    expect(performance.now() - began).toBeLessThan(1000);
    const stoppedAnswer = {
      ok: false,
      error: expect.objectContaining({
        code: 'UPSTREAM_TIMEOUT',
        message: `the target ${target.url}/api/user had not answered when the proxy stopped; the service is slow or hangs`,
      }),
    };
    expect(got).toEqual(stoppedAnswer);
    const after = await new Promise<Result<TargetAnswer, ApiError>>((resolve) =>
      forward(to, { method: 'GET', pathAndQuery: '/api/user', headers: [], body: undefined }, resolve),
    );
    expect(after).toEqual(stoppedAnswer);
    expect(target.requests).toHaveLength(1);
  });
});

describe('the proxy stopping with exchanges in flight', () => {
  it('answers them 504 at the grace deadline, saying the proxy stopped, and closes every connection to the target', async () => {
    const target = await rawTarget(() => undefined);
    const proxy = await proxies({ target: target.url });
    const waiting = call(proxy.url, 'GET', '/api/user', { body: getA });
    await vi.waitFor(() => expect(target.requests).toHaveLength(1));
    const began = performance.now();
    const closed = proxy.close();
    const answer = await waiting;
    expect(performance.now() - began).toBeGreaterThan(4_000);
    expect(answer.status).toBe(504);
    expect(answer.body.error).toMatchObject({
      code: 'UPSTREAM_TIMEOUT',
      message: `the target ${target.url}/api/user had not answered when the proxy stopped; the service is slow or hangs`,
    });
    await closed;
    await vi.waitFor(() => expect(target.sockets()).toHaveLength(0));
  }, 15_000);
});
