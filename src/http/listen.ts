import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { product } from '../errors.js';

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

/** Listens, or rejects with a ListenError that names the port or address and how to choose another. */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException): void => reject(listenError(error, port, host));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}

function listenError(error: NodeJS.ErrnoException, port: number, host: string): Error {
  const code = error.code ?? '';
  // Said for both ways of starting: the in-process option and the command line's flag.
  const choose = 'choose another with the port option (--port N on the command line), or 0 for a free one';
  switch (code) {
    case 'EADDRINUSE':
      return new ListenError(
        `${product}: port ${port} on ${host} is already in use (another server, perhaps another mock, listens there). Stop it, or ${choose}.`,
        code,
      );
    case 'EACCES':
      return new ListenError(
        `${product}: this user may not listen on port ${port} on ${host} (ports below 1024 need privileges); ${choose}.`,
        code,
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ListenError(
        `${product}: cannot listen on ${host}: it is not an address of this machine; give the host option (--host on the command line) 127.0.0.1 (this machine only) or 0.0.0.0 (every interface).`,
        code,
      );
    default:
      return error;
  }
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
