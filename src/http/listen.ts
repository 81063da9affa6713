import { once } from 'node:events';
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { type AddressInfo, BlockList, isIP } from 'node:net';
import { product } from '../errors.js';
import { setting } from '../runtime/options.js';
import type { MockServerOptions } from '../runtime/serveOptions.js';
import { answerClientError, answeringClientErrors } from './clientError.js';

/** The port or address in the settings cannot be listened on: a mistake in how the mock was started. */
export class ListenError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'ListenError';
  }
}

/** What the mock and the proxy start their HTTP server with (the proxy's timeouts are its own). */
type ServerSettings = Required<Pick<MockServerOptions, Started>> & Pick<MockServerOptions, 'adminKey'>;
type Started = 'host' | 'port' | 'headersTimeout' | 'requestTimeout';

/**
 * A server listening: the address it was given (an IPv6 one without brackets), the port it took, its base URL, and
 * `serve`, which gives it its request listener: requests that arrive before are held until then (`holdRequests`).
 */
export type Listening = {
  readonly server: Server;
  readonly host: string;
  readonly port: number;
  readonly url: string;
  serve(listener: RequestListener): void;
};

/**
 * The one way the mock and the proxy start an HTTP server: created with their limits, a malformed request answered
 * with the error envelope, and listening. A host beyond loopback without an admin key is refused first (`refuse`
 * makes the error; `guards` says what the key protects), as is a port or address that cannot be listened on.
 */
export async function startServer(
  settings: ServerSettings,
  guards: string,
  refuse: (message: string) => Error = (message) => new ListenError(message, 'ADMIN_KEY_REQUIRED'),
): Promise<Listening> {
  const host = settings.host.replace(/^\[(.*)\]$/, '$1');
  if (!isLoopback(host) && (settings.adminKey ?? '') === '')
    throw refuse(
      `${product}: listening on ${host} (beyond loopback) needs ${setting('adminKey', 'admin-key')}, so that nobody else can ${guards}`,
    );
  const server = createServer({
    headersTimeout: settings.headersTimeout,
    requestTimeout: settings.requestTimeout,
    maxHeaderSize: 16 * 1024,
    connectionsCheckingInterval: 250,
    // Node's own refusal of a missing Host has no body; the app answers it with the error envelope.
    requireHostHeader: false,
  });
  server.on('clientError', answerClientError);
  const held = holdRequests(server);
  await listen(server, settings.port, host);
  const { port } = server.address() as AddressInfo;
  const url = `http://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  return { server, host, port, url, serve: (listener) => held.serve(answeringClientErrors(listener)) };
}

const loopbackAddresses = new BlockList();
loopbackAddresses.addSubnet('127.0.0.0', 8, 'ipv4');
loopbackAddresses.addAddress('::1', 'ipv6');

/**
 * Whether `host` reaches this machine only: an address in 127.0.0.0/8 or ::1 (an IPv4 one also mapped into IPv6,
 * `::ffff:127.0.0.1`), or the name `localhost`. Any other name (`127.evil.example`) and the unspecified addresses
 * `0.0.0.0` and `::` (every interface) are not.
 */
export function isLoopback(host: string): boolean {
  const family = isIP(host);
  if (family === 0) return host.toLowerCase() === 'localhost';
  return loopbackAddresses.check(host, family === 6 ? 'ipv6' : 'ipv4');
}

/** Listens, or rejects with a ListenError that names the port or address and how to choose another. */
export async function listen(server: Server, port: number, host: string): Promise<void> {
  server.listen(port, host);
  await once(server, 'listening').catch((error: NodeJS.ErrnoException) => {
    throw listenError(error, port, host);
  });
}

function listenError(error: NodeJS.ErrnoException, port: number, host: string): Error {
  const code = error.code ?? '';
  // Said for both ways of starting: the in-process option and the command line's flag.
  const choose = 'choose another with the port option (--port N on the command line), or 0 for a free one';
  const notHere = `cannot listen on ${host}: it is not an address of this machine; give the host option (--host on the command line) 127.0.0.1 (this machine only) or 0.0.0.0 (every interface).`;
  const said: Readonly<Record<string, string>> = {
    EADDRINUSE: `port ${port} on ${host} is already in use (another server, perhaps another mock, listens there). Stop it, or ${choose}.`,
    EACCES: `this user may not listen on port ${port} on ${host} (ports below 1024 need privileges); ${choose}.`,
    EADDRNOTAVAIL: notHere,
    ENOTFOUND: notHere,
    EAI_AGAIN: notHere,
  };
  return Object.hasOwn(said, code) ? new ListenError(`${product}: ${said[code]}`, code) : error;
}

/**
 * Makes requests wait until `serve` gives the listener. The mock takes its port before it opens the store, so that
 * a port in use costs nothing on disk; a client that connects meanwhile is answered once the store is ready.
 */
export function holdRequests(server: Server): { serve(listener: RequestListener): void } {
  const waiting: Array<[IncomingMessage, ServerResponse]> = [];
  const hold = (req: IncomingMessage, res: ServerResponse): void => {
    waiting.push([req, res]);
  };
  server.on('request', hold);
  return {
    serve(listener) {
      server.off('request', hold);
      server.on('request', listener);
      for (const [req, res] of waiting.splice(0)) listener(req, res);
    },
  };
}

/**
 * Stops listening and lets in-flight requests finish: every later answer says `Connection: close`, idle
 * keep-alive connections are closed now and every 50 ms, and whatever is still open after `graceMs` is cut.
 * `giveUp`, when given, is called at the deadline first, so that requests still waiting on something (the proxy's
 * target) can be answered before their connections are cut, 250 ms later.
 */
export async function closeServer(server: Server, graceMs = 5_000, giveUp?: () => void): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => res.setHeader('connection', 'close'));
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  let cut: NodeJS.Timeout | undefined;
  const deadline = setTimeout(() => {
    if (giveUp === undefined) server.closeAllConnections();
    else {
      giveUp();
      cut = setTimeout(() => server.closeAllConnections(), 250);
    }
  }, graceMs);
  await closed;
  clearInterval(sweep);
  clearTimeout(deadline);
  clearTimeout(cut);
}
