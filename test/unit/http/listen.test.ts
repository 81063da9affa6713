import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  closeServer,
  holdRequests,
  isLoopback,
  ListenError,
  listen,
  startServer,
} from '../../../src/http/listen.js';
import { call } from '../../support/http.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

function server(): Server {
  const made = createServer();
  servers.push(made);
  return made;
}

describe('listen', () => {
  it('rejects a port in use with a ListenError naming the port and how to choose another', async () => {
    const first = server();
    await listen(first, 0, '127.0.0.1');
    const { port } = first.address() as AddressInfo;
    const refused = await listen(server(), port, '127.0.0.1').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ListenError);
    expect(refused).toMatchObject({ code: 'EADDRINUSE' });
    expect((refused as Error).message).toMatch(
      new RegExp(
        `^user-group-mock: port ${port} on 127\\.0\\.0\\.1 is already in use .*the port option \\(--port N on the command line\\), or 0 for a free one\\.$`,
      ),
    );
  });
});

describe('isLoopback', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['::1', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:127.0.0.1', true],
    ['localhost', true],
    ['LocalHost', true],
    ['127.evil.example', false],
    ['127.', false],
    ['127.0.0.1.nip.io', false],
    ['0.0.0.0', false],
    ['::', false],
    ['::ffff:10.0.0.1', false],
    ['192.0.2.10', false],
    ['localhost.evil.example', false],
  ])('judges %s loopback: %s', (host, loopback) => {
    expect(isLoopback(host)).toBe(loopback);
  });
});

describe('startServer', () => {
  const settings = { port: 0, headersTimeout: 10_000, requestTimeout: 30_000 };

  it.each(['127.evil.example', '0.0.0.0', '::', '[::]'])(
    'refuses %s without an admin key, before it listens, naming the option',
    async (host) => {
      const refused = await startServer({ ...settings, host }, 'read the mock').catch(
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(ListenError);
      expect((refused as Error).message).toBe(
        `user-group-mock: listening on ${host.replace(/^\[|\]$/g, '')} (beyond loopback) needs the adminKey option (--admin-key), so that nobody else can read the mock`,
      );
    },
  );

  it.each([
    ['[::1]', 'http://[::1]:'],
    ['::ffff:127.0.0.1', 'http://[::ffff:127.0.0.1]:'],
    ['localhost', 'http://localhost:'],
  ])('listens on %s without an admin key, at the URL %s…', async (host, url) => {
    const started = await startServer({ ...settings, host }, 'read the mock');
    servers.push(started.server);
    started.server.on('request', (_req, res) => res.writeHead(204).end());
    expect(started.url).toBe(`${url}${started.port}`);
    expect((await call(started.url, 'GET', '/')).status).toBe(204);
  });
  it('holds the requests that arrive before `serve`, then serves them with one request listener', async () => {
    const started = await startServer({ ...settings, host: '127.0.0.1' }, 'read the mock');
    servers.push(started.server);
    const early = call(started.url, 'GET', '/early');
    await new Promise((resolve) => setTimeout(resolve, 50));
    started.serve((req, res) => res.end(JSON.stringify({ path: req.url })));
    expect((await early).body).toEqual({ path: '/early' });
    // A second listener would make Node copy the listener list on every request.
    expect(started.server.listenerCount('request')).toBe(1);
  });
});

describe('holdRequests', () => {
  it('answers the requests that arrived before the listener was given, once it is', async () => {
    const held = server();
    await listen(held, 0, '127.0.0.1');
    const hold = holdRequests(held);
    const url = `http://127.0.0.1:${(held.address() as AddressInfo).port}`;
    let answered = false;
    const early = call(url, 'GET', '/early').then((answer) => {
      answered = true;
      return answer;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toBe(false);
    hold.serve((req, res) => res.end(JSON.stringify({ path: req.url })));
    expect((await early).body).toEqual({ path: '/early' });
    expect((await call(url, 'GET', '/later')).body).toEqual({ path: '/later' });
  });
});

describe('closeServer', () => {
  it('calls giveUp at the deadline, so that a request still waiting is answered before its connection is cut', async () => {
    const waiting = server();
    let answer: (() => void) | undefined;
    waiting.on('request', (_req, res) => {
      answer = () => res.writeHead(504, { 'content-type': 'text/plain' }).end('gave up');
    });
    await listen(waiting, 0, '127.0.0.1');
    const { port } = waiting.address() as AddressInfo;
    const pending = call(`http://127.0.0.1:${port}`, 'GET', '/');
    await vi.waitFor(() => expect(answer).toBeDefined());
    let gaveUpAt = 0;
    const began = performance.now();
    await closeServer(waiting, 100, () => {
      gaveUpAt = performance.now() - began;
      answer?.();
    });
    const answered = await pending;
    expect(answered.status).toBe(504);
    expect(answered.text).toBe('gave up');
    expect(gaveUpAt).toBeGreaterThanOrEqual(90);
  });
});
