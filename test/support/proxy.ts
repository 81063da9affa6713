import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
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
