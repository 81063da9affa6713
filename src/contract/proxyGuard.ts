import type { ServerResponse } from 'node:http';
import { product } from '../errors.js';
import { connectionFailures } from './reach.js';

export interface ProxyGuard {
  /** Notes a response of Pact's proxy as in flight until it closes. */
  track(res: ServerResponse): void;
  /** The code of the first broken connection to the provider (`ECONNRESET`), if any. */
  lost(): string | undefined;
  /** Gives the process its own handling of uncaught exceptions and warnings back. */
  release(): void;
}

/**
 * Pact's proxy forwards each request through http-proxy without an error handler, so a provider that goes away
 * during the run throws from a socket callback (an uncaught exception: a stack trace), and Pact then waits 30 s
 * for each request it sent. Until `release`, such an error answers the requests in flight with 502 instead and is
 * remembered, so the run ends in seconds; any other uncaught exception is left to the other listeners, or thrown
 * again as if the guard were not there.
 *
 * http-proxy also calls `util._extend`, which Node 22 and later report once per process as DEP0060: a dependency's
 * deprecation the user can do nothing about, printed in the middle of Pact's report or after it. Until `release`,
 * that code alone is held back; every other warning is emitted as usual.
 */
export function guardProxy(): ProxyGuard {
  const inFlight = new Set<ServerResponse>();
  let lost: string | undefined;
  const restoreWarnings = withoutDependencyDeprecation('DEP0060');
  const release = (): void => {
    process.off('uncaughtException', onUncaught);
    restoreWarnings();
  };
  function onUncaught(error: Error): void {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (!Object.hasOwn(connectionFailures, code)) {
      if (process.listenerCount('uncaughtException') > 1) return;
      release();
      process.nextTick(() => {
        throw error;
      });
      return;
    }
    lost ??= code;
    for (const res of inFlight) {
      if (res.headersSent) res.destroy();
      else
        res
          .writeHead(502, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: `${product}: the connection to the provider failed (${code})` }));
    }
  }
  process.on('uncaughtException', onUncaught);
  return {
    track: (res) => {
      inFlight.add(res);
      res.once('close', () => inFlight.delete(res));
    },
    lost: () => lost,
    release,
  };
}

/** Holds back the warnings of one deprecation code until the function it answers is called. */
export function withoutDependencyDeprecation(heldBack: string): () => void {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    // emitWarning(warning, type, code, ctor) or emitWarning(warning, { type, code, ... })
    const [second, third] = rest;
    const code = typeof second === 'object' && second !== null ? (second as { code?: unknown }).code : third;
    if (code === heldBack) return;
    (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  return () => {
    process.emitWarning = emit;
  };
}
