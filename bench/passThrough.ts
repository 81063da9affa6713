import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { fileURLToPath } from 'node:url';
import { type Dispatcher, Pool } from 'undici';
import type { Settings } from './config.js';
import { combine, type LoadResult, runLoad } from './load.js';
import { oursMissing, startOurs } from './ours.js';
import { type ServerProcess, spawnServer } from './proc.js';
import { startProxy } from './proxy.js';
import { int, notAvailable, type Row } from './table.js';
import { getExisting } from './workloads.js';

/**
 * The bare pass-throughs: a node:http server that reads each request and sends it to the target with one client,
 * then writes the answer back, nothing else. What each client costs on the proxy's way, without the proxy's judging.
 */
const CLIENTS = {
  'node-http': 'node:http with a keep-alive Agent',
  'undici-request': 'undici Pool.request',
  'undici-request-kept': 'undici Pool.request, reset: false',
  'undici-dispatch-kept': 'undici Pool.dispatch, reset: false',
} as const;
type Client = keyof typeof CLIENTS;

/** What a pass-through forwards: the request's method, path, body and the two headers the API reads. */
interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}
type Answered = (status: number, contentType: string | undefined, body: Buffer) => void;
type Forward = (sent: Sent, answered: Answered, failed: (error: Error) => void) => void;

/** A forwarding function per client, and a count of the connections it opened to `target`. */
function clientFor(kind: Client, target: URL): { forward: Forward; opened: () => number } {
  let opened = 0;
  if (kind === 'node-http') {
    const agent = new Agent({ keepAlive: true, maxSockets: 256 });
    const connect = agent.createConnection.bind(agent);
    agent.createConnection = (...args: Parameters<typeof connect>) => {
      opened++;
      return connect(...args);
    };
    const forward: Forward = (sent, answered, failed) => {
      const outgoing = httpRequest(
        new URL(sent.path, target),
        { method: sent.method, agent, headers: { ...sent.headers, 'content-length': sent.body.length } },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () =>
            answered(answer.statusCode ?? 502, answer.headers['content-type'], Buffer.concat(chunks)),
          );
          answer.on('error', failed);
        },
      );
      outgoing.on('error', failed);
      outgoing.end(sent.body);
    };
    return { forward, opened: () => opened };
  }
  const pool = new Pool(target.origin, { connections: 256, pipelining: 1 });
  pool.on('connect', () => opened++);
  const options = (sent: Sent): Dispatcher.DispatchOptions => ({
    method: sent.method as Dispatcher.HttpMethod,
    path: sent.path,
    headers: sent.headers,
    body: sent.body,
    ...(kind === 'undici-request' ? {} : { reset: false }),
  });
  if (kind === 'undici-dispatch-kept') {
    const forward: Forward = (sent, answered, failed) => {
      let status = 0;
      let contentType: string | undefined;
      const chunks: Buffer[] = [];
      // undici's current handler API, as the proxy's `forward` uses it.
      pool.dispatch(options(sent), {
        onRequestStart: () => undefined,
        onResponseStart: (_controller, code, headers) => {
          status = code;
          contentType = headerValue(headers, 'content-type');
        },
        onResponseData: (_controller, chunk) => {
          chunks.push(chunk);
        },
        onResponseEnd: () => answered(status, contentType, Buffer.concat(chunks)),
        onResponseError: (_controller, error) => failed(error),
      });
    };
    return { forward, opened: () => opened };
  }
  const forward: Forward = (sent, answered, failed) => {
    pool
      .request(options(sent))
      .then(async (answer) => {
        const body = Buffer.from(await answer.body.arrayBuffer());
        answered(answer.statusCode, headerValue(answer.headers, 'content-type'), body);
      })
      .catch(failed);
  };
  return { forward, opened: () => opened };
}

const headerValue = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const self = fileURLToPath(import.meta.url);

/** A pass-through with `kind`'s client in its own process, in front of `target`. */
export function startPassThrough(kind: Client, target: string): Promise<ServerProcess> {
  return spawnServer({
    name: `pass-through (${kind})`,
    command: process.execPath,
    args: ['--import', 'tsx', self, 'serve', kind, target],
    readyLine: /^pass-through listening on (http:\/\/\S+)$/,
  });
}

/** The pass-through's own process: `GET /__opened` answers how many connections it opened to the target. */
function servePassThrough(kind: Client, target: URL): void {
  const { forward, opened } = clientFor(kind, target);
  const server = createServer((req, res) => {
    if (req.url === '/__opened') {
      res.end(String(opened()));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const name of ['authorization', 'content-type']) {
        const value = req.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      forward(
        { method: req.method ?? 'GET', path: req.url ?? '/', headers, body: Buffer.concat(chunks) },
        (status, contentType, body) => {
          res.writeHead(status, {
            'content-length': body.length,
            ...(contentType === undefined ? {} : { 'content-type': contentType }),
          });
          res.end(body);
        },
        (error) => {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(error.message);
        },
      );
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    console.log(`pass-through listening on http://127.0.0.1:${address.port}`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

/** How many connections a pass-through opened to the target so far. */
async function openedBy(passThrough: ServerProcess): Promise<number> {
  const answer = await fetch(`${passThrough.url}/__opened`);
  return Number(await answer.text());
}

/**
 * GET get-or-create (an existing group) at saturation on the mock directly, through each bare pass-through, and
 * through the proxy, all to the same mock with the same connections: each path runs once per round, in an order
 * that turns by one each round, for `getSeconds / 2`. Each pass-through's row says how many connections it opened
 * to the mock (undici closes one after every GET with a body unless the request says `reset: false`).
 */
export async function passThroughRows(settings: Settings): Promise<Row[]> {
  const missing = oursMissing();
  if (missing !== undefined) return [notAvailable('pass-throughs', missing)];
  const mock = await startOurs();
  const started: ServerProcess[] = [];
  try {
    const passThroughs = await Promise.all(
      (Object.keys(CLIENTS) as Client[]).map(async (kind) => {
        const server = await startPassThrough(kind, mock.url);
        started.push(server);
        return { label: `bare pass-through on ${CLIENTS[kind]}`, url: server.url, server };
      }),
    );
    const proxy = await startProxy(mock.url);
    started.push(proxy);
    const paths = [
      { label: 'mock directly', url: mock.url, server: undefined },
      ...passThroughs,
      { label: 'through the proxy (undici Pool.dispatch, reset: false)', url: proxy.url, server: undefined },
    ];
    const run = (url: string, seconds: number) =>
      runLoad({ url, requests: getExisting(), connections: settings.connections, seconds });
    for (const { url } of paths) await run(url, settings.warmupSeconds);
    const before = await Promise.all(passThroughs.map(({ server }) => openedBy(server)));
    const results = new Map<string, LoadResult[]>();
    for (let round = 0; round < settings.rounds; round++)
      for (let i = 0; i < paths.length; i++) {
        const { url } = paths[(i + round) % paths.length] as (typeof paths)[number];
        results.set(url, [...(results.get(url) ?? []), await run(url, settings.getSeconds / 2)]);
      }
    const after = await Promise.all(passThroughs.map(({ server }) => openedBy(server)));
    return paths.map(({ label, url, server }) => {
      const load = combine(results.get(url) ?? []);
      const at = passThroughs.findIndex((p) => p.server === server);
      const opened = at === -1 ? undefined : (after[at] ?? 0) - (before[at] ?? 0);
      return {
        name: `${label}, get-or-create (existing)`,
        load,
        ...(opened === undefined
          ? {}
          : { note: `opened ${int(opened)} connections to the mock for ${int(load.requests)} requests` }),
      };
    });
  } finally {
    await Promise.all(started.map((server) => server.stop()));
    await mock.stop();
  }
}

// The pass-through's own process: `--import tsx bench/passThrough.ts serve KIND TARGET`.
if (process.argv[1] === self) {
  const [command, kind, target] = process.argv.slice(2);
  if (command === 'serve' && kind !== undefined && kind in CLIENTS && target !== undefined)
    servePassThrough(kind as Client, new URL(target));
}
