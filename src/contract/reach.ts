import { connect } from 'node:net';
import { failure, ok, type Result } from '../result.js';

/** What `reach` found: the address accepts connections, or why it does not (`connection refused`). */
export type Reach = Result<void, string>;

/** The codes of a connection that failed or broke, each said in words. */
export const connectionFailures: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
  EPIPE: 'connection closed',
  ETIMEDOUT: 'connection timed out',
};

/**
 * Whether something accepts TCP connections at the host and port of `url` (the port of its scheme when it names
 * none), within `timeoutMs`. Opens one connection and closes it at once; sends nothing.
 */
export function reach(url: string, timeoutMs = 5000): Promise<Reach> {
  const target = new URL(url);
  const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const settle = (found: Reach): void => {
      socket.destroy();
      resolve(found);
    };
    socket.setTimeout(timeoutMs, () => settle(failure(`no connection within ${timeoutMs / 1000} s`)));
    socket.once('connect', () => settle(ok(undefined)));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      settle(failure(connectionFailures[error.code ?? ''] ?? error.code ?? error.message)),
    );
  });
}
