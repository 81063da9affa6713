import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeServer, holdRequests, ListenError, listen } from '../../../src/http/listen.js';
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
