import { connect, type Socket } from 'node:net';
import { GET_BODY, HEADERS, PATH } from './config.js';
import { type LoadResult, loadResult } from './load.js';

export interface PacedOptions {
  url: string;
  /** Requests per second offered over all connections together. */
  rate: number;
  connections: number;
  /** Stops sending after `seconds` (the answers in flight are awaited, each within `timeoutMs`). */
  seconds: number;
  timeoutMs?: number;
  /** The Authorization value of the n-th request over all connections (default: the benchmark's valid key). */
  authorization?: (n: number) => string;
}

/**
 * Latency at a fixed offered rate (open loop), where `runLoad` measures at saturation (closed loop): at
 * saturation every connection waits on the busiest process, so p50 is the connections divided by the
 * throughput and says how much CPU the machine has left, not how long one request takes. Here connection k of
 * n sends its i-th GET get-or-create at `(i * n + k) / rate` seconds, on keep-alive sockets written directly
 * (no client library between the clock and the socket). A request's latency runs from its write or, when an answer
 * came so late that the next request is already due, from its scheduled time: a slow answer also counts against
 * the requests queued behind it (no coordinated omission). The answers must carry Content-Length (the mock's and the proxy's do).
 */
export async function runPaced(options: PacedOptions): Promise<LoadResult> {
  const { url, rate, connections, seconds, timeoutMs = 10_000, authorization } = options;
  const target = new URL(url);
  const messageWith = (headers: Record<string, string>) =>
    Buffer.from(
      [
        `GET ${PATH} HTTP/1.1`,
        `Host: ${target.host}`,
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
        `Content-Length: ${Buffer.byteLength(GET_BODY)}`,
        '',
        GET_BODY,
      ].join('\r\n'),
    );
  const valid = messageWith(HEADERS);
  const messageFor = (n: number) =>
    authorization === undefined ? valid : messageWith({ ...HEADERS, Authorization: authorization(n) });
  const sockets = await Promise.all(
    Array.from({ length: connections }, () => open(target.hostname, Number(target.port))),
  );
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  const began = performance.now() + 20;
  let lastAnswer = began;
  const perConnection = Math.max(1, Math.floor((rate * seconds) / connections));
  const problems: Array<() => Error | undefined> = [];
  try {
    await Promise.all(
      sockets.map(async (socket, k) => {
        const answers = answersOf(socket, timeoutMs);
        problems.push(answers.problem);
        for (let i = 0; i < perConnection; i++) {
          const due = began + ((i * connections + k) / rate) * 1_000;
          const wait = due - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          // Behind schedule because the last answer came late: counted from when it was due. Otherwise from the
          // write, so that a timer firing a little early or late (they tick in whole milliseconds) adds nothing.
          const start = wait > 0 ? performance.now() : due;
          socket.write(messageFor(i * connections + k));
          const status = await answers.next();
          if (status === undefined) {
            errors += perConnection - i;
            return;
          }
          lastAnswer = performance.now();
          latencies.push(lastAnswer - start);
          if (status < 200 || status > 299) non2xx++;
        }
      }),
    );
  } finally {
    for (const socket of sockets) socket.destroy();
  }
  const problem = problems.map((of) => of()).find((error) => error !== undefined);
  if (problem !== undefined) throw problem;
  // The rate achieved: below the offered one when the answers came too slowly for the connections to keep pace.
  return loadResult(latencies, (lastAnswer - began) / 1_000, non2xx, errors);
}

function open(host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, noDelay: true });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * The status of each answer on `socket` in turn, undefined once the socket fails or an answer takes too long;
 * `problem` says why when the answers could not be read at all.
 */
function answersOf(
  socket: Socket,
  timeoutMs: number,
): { next(): Promise<number | undefined>; problem(): Error | undefined } {
  let buffered: Buffer = Buffer.alloc(0);
  let problem: Error | undefined;
  let waiting: ((status: number | undefined) => void) | undefined;
  let failed = false;
  const settle = (status: number | undefined) => {
    const resolve = waiting;
    waiting = undefined;
    resolve?.(status);
  };
  const take = (): number | undefined => {
    const end = buffered.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const head = buffered.subarray(0, end).toString('latin1');
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (length === null) {
      problem = new Error('an answer without Content-Length: runPaced frames answers by it only');
      socket.destroy();
      return undefined;
    }
    const total = end + 4 + Number(length[1]);
    if (buffered.length < total) return undefined;
    buffered = buffered.subarray(total);
    return Number(head.slice(9, 12));
  };
  socket.on('data', (chunk: Buffer) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    const status = take();
    if (status !== undefined) settle(status);
  });
  const fail = () => {
    failed = true;
    settle(undefined);
  };
  socket.on('error', fail);
  socket.on('close', fail);
  return {
    problem: () => problem,
    next() {
      if (failed) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const timer = setTimeout(fail, timeoutMs);
        waiting = (status) => {
          clearTimeout(timer);
          resolve(status);
        };
      });
    },
  };
}
