import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

/**
 * What a provider in front answers itself: a status and JSON body, `hold` (no answer until it closes), or `reset`
 * (the connection is destroyed, as by a provider that crashed).
 */
export type Interception = { readonly status: number; readonly body: unknown } | 'hold' | 'reset';

export interface ProviderInFront {
  readonly url: string;
  /** `METHOD path  status` of every request, in order of arrival (status `held` for a held one). */
  readonly seen: string[];
  /** Resolves when the first request is held. */
  readonly firstHeld: Promise<void>;
  close(): Promise<void>;
}

const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length']);

/**
 * An HTTP provider that forwards every request to `backend` (a running mock) unchanged, except those `intercept`
 * answers itself: the way to make a provider without the tenants API, one that breaks the contract, or a slow one.
 */
export async function providerInFront(
  backend: string,
  intercept: (request: { readonly method: string; readonly path: string }) => Interception | undefined,
): Promise<ProviderInFront> {
  const seen: string[] = [];
  const held: ServerResponse[] = [];
  let markHeld: () => void = () => {};
  const firstHeld = new Promise<void>((resolve) => {
    markHeld = resolve;
  });
  const server = createServer(async (req, res) => {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const body = await bodyOf(req);
    const interception = intercept({ method, path });
    if (interception === 'hold') {
      seen.push(`${method} ${path}  held`);
      held.push(res);
      markHeld();
      return;
    }
    if (interception === 'reset') {
      seen.push(`${method} ${path}  reset`);
      res.socket?.destroy();
      return;
    }
    if (interception !== undefined) {
      seen.push(`${method} ${path}  ${interception.status}`);
      res.writeHead(interception.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(interception.body));
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([name]) => !hopByHop.has(name)),
    ) as Record<string, string>;
    const answer = await request(`${backend}${path}`, {
      method: method as 'GET',
      headers,
      ...(body.length > 0 ? { body } : {}),
    });
    const text = Buffer.from(await answer.body.arrayBuffer());
    seen.push(`${method} ${path}  ${answer.statusCode}`);
    const forwarded = Object.fromEntries(
      Object.entries(answer.headers).filter(([name]) => !hopByHop.has(name)),
    ) as Record<string, string>;
    res.writeHead(answer.statusCode, forwarded).end(text);
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    firstHeld,
    close: async () => {
      for (const res of held.splice(0)) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
