import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Ports for servers the tests start in another process (PostgreSQL, Prism, a container's published port), which
 * must be told a port rather than take port 0.
 *
 * A port taken with port 0 and released is in the kernel's ephemeral range: the next server any test file starts
 * on port 0, or any outgoing connection, may be given it before the process binds it, or while a stopped
 * PostgreSQL is down before its restart on it. Below that range the kernel hands out nothing by itself, so only
 * these picks compete there, at random among thousands.
 */

/** The ports the kernel hands out for port 0 and outgoing connections (Linux's default where /proc is silent). */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    return [Number(low), Number(high)];
  } catch {
    return [32_768, 60_999];
  }
}

/** Where to pick: from 10000 to below the ephemeral range, else above it, where either has room. */
function pickRange(): [number, number] | undefined {
  const [low, high] = ephemeralRange();
  if (low - 10_000 >= 2_000) return [10_000, low - 1];
  if (65_535 - high >= 2_000) return [high + 1, 65_535];
  return undefined;
}

function listenOn(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as { port: number };
      server.close(() => resolve(bound));
    });
  });
}

/** A port on 127.0.0.1 free now, outside the kernel's ephemeral range where it has room (else port 0's pick). */
export async function freePort(): Promise<number> {
  const range = pickRange();
  for (let attempt = 0; range !== undefined && attempt < 50; attempt++) {
    const port = range[0] + Math.floor(Math.random() * (range[1] - range[0] + 1));
    if ((await listenOn(port)) !== undefined) return port;
  }
  const port = await listenOn(0);
  if (port === undefined) throw new Error('no free port on 127.0.0.1');
  return port;
}
