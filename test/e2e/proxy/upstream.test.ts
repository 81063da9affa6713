import { type AddressInfo, createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Connection, Connections } from '../../../src/proxy/connections.js';
import { call } from '../../support/http.js';
import { useProxies } from '../../support/proxy.js';

const proxies = useProxies();

/** A request as a raw target read it: its head's text, its body, and which connection (from 0) carried it. */
interface RawRequest {
  readonly head: string;
  readonly body: string;
  readonly connection: number;
}

interface RawTarget {
  readonly url: string;
  readonly requests: RawRequest[];
  /** How many connections the proxy opened to it. */
  connections(): number;
  /** Its end of each connection still open. */
  sockets(): Socket[];
}

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

/**
 * A target speaking HTTP/1.1 by hand on 127.0.0.1, port 0, so that a test can send any bytes: `answer` writes what
 * it likes to the socket for each request (framed by the request's Content-Length), or nothing.
 */
async function rawTarget(
  answer: (socket: Socket, request: RawRequest, index: number) => void,
): Promise<RawTarget> {
  const requests: RawRequest[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((socket) => {
    const connection = connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = Buffer.alloc(0);
    socket.on('data', (bytes: Buffer) => {
      pending = Buffer.concat([pending, bytes]);
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end === -1) return;
        const head = pending.toString('latin1', 0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        const request = { head, body: pending.toString('utf8', end + 4, end + 4 + length), connection };
        pending = pending.subarray(end + 4 + length);
        requests.push(request);
        answer(socket, request, requests.length - 1);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    connections: () => connections,
    sockets: () => [...sockets],
  };
}

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
    expect(target.requests[0]?.head).toMatch(/^GET \/api\/user HTTP\/1\.1\r\nHost: 127\.0\.0\.1:\d+\r\n/);
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
    expect(proxy.requests()[0]?.diagnostics).toEqual([]);
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
      says: 'sent a Content-Length that is not one number: "2, 3"; the service broke HTTP/1.1 framing, so its answer cannot be passed on',
    },
    {
      wrong: 'a body over the limit',
      bytes: `HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n`,
      says: 'answered a body larger than the limit of 1000 bytes; raise the bodyLimit option (--body-limit) if the service really answers that much',
    },
    {
      wrong: 'an answer cut short',
      bytes: `HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{"success":`,
      says: 'closed the connection before the whole answer; the request was not answered by the service',
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
      expect(proxy.requests({ invalid: true })[0]).toMatchObject({ status: 502, fault: 'provider' });
      expect((await call(proxy.url, 'GET', '/api/user', { body: getA })).status).toBe(200);
    },
  );

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
        expect(second.body.error.message).toMatch(/closed the connection without (answering|a whole answer)/);
      expect(target.requests).toHaveLength(requests);
      expect(target.requests.map((r) => r.connection)).toEqual(requests === 3 ? [0, 0, 1] : [0, 0]);
    },
  );
});

describe('Connections', () => {
  it('opens no more than its maximum, handing a freed connection to the request waiting', async () => {
    const target = await rawTarget(() => undefined);
    const connections = new Connections(new URL(target.url), { max: 1, idleMs: 1000 });
    const used: number[] = [];
    const first = new Promise<void>((resolve) =>
      connections.take((connection) => {
        used.push(1);
        setTimeout(() => {
          connections.give(connection, true);
          resolve();
        }, 50);
      }),
    );
    const second = new Promise<boolean>((resolve) =>
      connections.take((connection) => {
        used.push(2);
        resolve(connection.reused);
        connections.give(connection, false);
      }),
    );
    expect(used).toEqual([1]);
    await first;
    expect(await second).toBe(true);
    expect(used).toEqual([1, 2]);
    connections.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(target.connections()).toBe(1);
  });

  it('closes a free connection that receives bytes nobody asked for', async () => {
    const target = await rawTarget(() => undefined);
    const connections = new Connections(new URL(target.url), { max: 4, idleMs: 10_000 });
    const taken = await new Promise<Connection>((resolve) => connections.take(resolve));
    taken.socket.write('GET /api/user HTTP/1.1\r\nContent-Length: 0\r\n\r\n');
    await vi.waitFor(() => expect(target.requests).toHaveLength(1));
    connections.give(taken, true);
    target.sockets()[0]?.write('HTTP/1.1 200 OK\r\n');
    await vi.waitFor(() => expect(taken.open).toBe(false));
    connections.close();
  });

  it('closes a free connection once it has been idle for idleMs', async () => {
    const target = await rawTarget(() => undefined);
    const connections = new Connections(new URL(target.url), { max: 4, idleMs: 50 });
    const taken = await new Promise<Connection>((resolve) => connections.take(resolve));
    await new Promise((resolve) => taken.socket.once('connect', resolve));
    connections.give(taken, true);
    expect(taken.open).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(taken.open).toBe(false);
    const next = await new Promise<Connection>((resolve) => connections.take(resolve));
    expect(next).not.toBe(taken);
    next.destroy();
    connections.close();
  });
});
