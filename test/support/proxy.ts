import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { createValidatingProxy, type ValidatingProxy, type ValidatingProxyOptions } from '../../src/index.js';

/**
 * A fresh proxy per call (127.0.0.1, port 0), each closed after its test (a recording the test made unwritable
 * on purpose, a RecordingLostError, is the test's to check).
 */
export function useProxies(): (options: ValidatingProxyOptions) => Promise<ValidatingProxy> {
  const open: ValidatingProxy[] = [];
  afterEach(async () => {
    const lostOnPurpose = (error: Error): void => {
      if (error.name !== 'RecordingLostError') throw error;
    };
    await Promise.all(open.splice(0).map((proxy) => proxy.close().catch(lostOnPurpose)));
  });
  return async (options) => {
    const proxy = await createValidatingProxy({ host: '127.0.0.1', port: 0, ...options });
    open.push(proxy);
    return proxy;
  };
}

/** A request as a target received it: method, URL, headers exactly as sent, and the body bytes. */
export interface Received {
  readonly method: string;
  readonly url: string;
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
}

export interface Target {
  readonly url: string;
  /** Every request that reached the target, in order. */
  readonly received: Received[];
  close(): Promise<void>;
}

/** A certificate and its private key, PEM. */
export interface Certificate {
  readonly cert: string;
  readonly key: string;
  /** The certificate's file, to give as `targetCa` (it is its own certificate authority). */
  readonly certFile: string;
}

/** A self-signed certificate for 127.0.0.1, made now by openssl in `dir`. */
export function selfSignedCertificate(dir: string): Certificate {
  const certFile = join(dir, 'ca.pem');
  const keyFile = join(dir, 'ca.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile };
}

/**
 * A small service of the test's own on 127.0.0.1, port 0: `answer` is called with each request once its body has
 * arrived (and may answer wrongly, slowly or not at all); over HTTPS with `tls`. Closed after the test.
 */
export function useTargets(): (
  answer: (req: Received, res: ServerResponse, raw: IncomingMessage) => void,
  tls?: Pick<Certificate, 'cert' | 'key'>,
) => Promise<Target> {
  const open: Target[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((target) => target.close()));
  });
  return async (answer, tls) => {
    const received: Received[] = [];
    const listener = (req: IncomingMessage, res: ServerResponse): void => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const got = {
          method: req.method ?? '',
          url: req.url ?? '',
          rawHeaders: req.rawHeaders,
          body: Buffer.concat(chunks),
        };
        received.push(got);
        answer(got, res, req);
      });
    };
    const server = tls === undefined ? createServer(listener) : createHttpsServer(tls, listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const target: Target = {
      url: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${(server.address() as AddressInfo).port}`,
      received,
      close: () => {
        server.closeAllConnections();
        return new Promise((resolve) => server.close(() => resolve()));
      },
    };
    open.push(target);
    return target;
  };
}

/** Writes a JSON answer. */
export function answerJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** A request as a raw target read it: its head's text, its body, and which connection (from 0) carried it. */
export interface RawRequest {
  readonly head: string;
  readonly body: string;
  readonly connection: number;
}

export interface RawTarget {
  readonly url: string;
  readonly requests: RawRequest[];
  /** How many connections were opened to it. */
  connections(): number;
  /** Its end of each connection still open. */
  sockets(): Socket[];
}

/**
 * A target speaking HTTP/1.1 by hand on 127.0.0.1, port 0, so that a test can send any bytes: `answer` writes what
 * it likes to the socket for each request (framed by the request's Content-Length), or nothing. Closed after the
 * test.
 */
export function useRawTargets(): (
  answer: (socket: Socket, request: RawRequest, index: number) => void,
) => Promise<RawTarget> {
  const open: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((close) => close()));
  });
  return async (answer) => {
    const requests: RawRequest[] = [];
    const sockets = new Set<Socket>();
    let connections = 0;
    const server = createNetServer((socket) => {
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
  };
}
