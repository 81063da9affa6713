import { fileURLToPath } from 'node:url';
import { median } from './load.js';
import { OUR_CLI, oursEnv } from './ours.js';
import { runPaced } from './paced.js';
import { type ServerProcess, spawnServer } from './proc.js';

/**
 * The proxy's cost at p50 at 1,000 req/s beside a bare undici `Pool.dispatch` pass-through's (one that forwards
 * and judges nothing), both in front of the same mock: what part of the cost is the forwarding itself.
 * `tsx bench/proxyPaced.ts [CLI] [ROUNDS]` (CLI: a build's `dist/bin/main.js`, by default this one's).
 */
const cli = process.argv[2] ?? OUR_CLI;
const rounds = Number(process.argv[3] ?? 5);
const serve = (name: string, args: string[], readyLine: RegExp): Promise<ServerProcess> =>
  spawnServer({ name, command: process.execPath, args, readyLine, env: oursEnv });
const started: ServerProcess[] = [];
try {
  const loopback = ['--host', '127.0.0.1', '--port', '0', '--log-level', 'silent'];
  const mock = await serve(
    'mock',
    [cli, 'serve', ...loopback],
    /^user-group-mock listening on (http:\/\/\S+)$/,
  );
  started.push(mock);
  const proxy = await serve(
    'proxy',
    [cli, 'proxy', '--target', mock.url, ...loopback],
    /^user-group-mock proxy listening on (http:\/\/[^,\s]+),/,
  );
  started.push(proxy);
  const passThrough = fileURLToPath(new URL('./passThrough.ts', import.meta.url));
  const bare = await serve(
    'bare pass-through',
    ['--import', 'tsx', passThrough, 'serve', 'undici-dispatch-kept', mock.url],
    /^pass-through listening on (http:\/\/\S+)$/,
  );
  started.push(bare);
  const paths = { direct: mock.url, bare: bare.url, proxy: proxy.url };
  const paced = (url: string, seconds: number) => runPaced({ url, rate: 1_000, connections: 10, seconds });
  for (const url of Object.values(paths)) await paced(url, 3);
  const p50s = { direct: [] as number[], bare: [] as number[], proxy: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    const order: (keyof typeof paths)[] =
      round % 2 === 0 ? ['direct', 'bare', 'proxy'] : ['proxy', 'bare', 'direct'];
    for (const path of order) p50s[path].push((await paced(paths[path], 4)).p50);
  }
  const cost = (path: 'bare' | 'proxy') =>
    p50s[path].map((p50, round) => p50 - (p50s.direct[round] as number));
  for (const path of ['bare', 'proxy'] as const)
    console.log(
      `${path === 'bare' ? 'bare pass-through' : 'proxy'} cost at p50 at 1,000 req/s: ${median(cost(path)).toFixed(3)} ms (by round: ${cost(
        path,
      )
        .map((ms) => ms.toFixed(2))
        .join(', ')})`,
    );
} finally {
  for (const server of started.reverse()) await server.stop();
}
