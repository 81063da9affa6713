import { inTurn, median, runLoad } from './load.js';
import { OUR_CLI, startOurs } from './ours.js';
import { runPaced } from './paced.js';
import { cpuMs, type ServerProcess } from './proc.js';
import { startProxy } from './proxy.js';
import { getExisting } from './workloads.js';

/**
 * Two builds side by side in one run, where two runs of `npm run bench` differ by more than the builds do:
 * `tsx bench/sideBySide.ts CLI_A CLI_B [proxy|mock] [paced|saturated] [ROUNDS]` (each CLI a build's
 * `dist/bin/main.js`; by default this build's against itself, the proxy, at 1,000 req/s, 8 rounds).
 *
 * - `proxy`: one mock (build A, in memory), each build's proxy in front of it; `mock`: each build's mock.
 * - Each round runs a slice of load through A and B in the order ABBA (BAAB in odd rounds): `paced` 1,000 req/s
 *   for 3 s a slice, `saturated` as fast as they answer for 2 s, 10 connections, get-or-create of a known group.
 * - It prints, per build, the medians over its slices of p50, throughput and the CPU time (user and system, from
 *   /proc) of its process per request, then the medians of the paired slices' differences and ratios: the figure
 *   to read, since the two slices of a pair ran under the same machine conditions.
 */
const [cliA = OUR_CLI, cliB = OUR_CLI, subject = 'proxy', mode = 'paced', roundsArg = '8'] =
  process.argv.slice(2);
const rounds = Number(roundsArg);
if (!['proxy', 'mock'].includes(subject) || !['paced', 'saturated'].includes(mode) || !(rounds > 0)) {
  console.error('usage: tsx bench/sideBySide.ts CLI_A CLI_B [proxy|mock] [paced|saturated] [ROUNDS]');
  process.exit(2);
}

interface Slice {
  readonly p50: number;
  readonly rps: number;
  /** CPU µs of the build's process per request. */
  readonly cpu: number;
}

const started: ServerProcess[] = [];
try {
  const target = subject === 'proxy' ? await startOurs(undefined, undefined, undefined, cliA) : undefined;
  if (target !== undefined) started.push(target);
  const builds: ServerProcess[] = [];
  for (const cli of [cliA, cliB]) {
    const server =
      target === undefined
        ? await startOurs(undefined, undefined, undefined, cli)
        : await startProxy(target.url, cli);
    started.push(server);
    builds.push(server);
  }
  const slice = async (server: ServerProcess, seconds: number): Promise<Slice> => {
    const before = cpuMs(server.pid);
    const load =
      mode === 'paced'
        ? await runPaced({ url: server.url, rate: 1_000, connections: 10, seconds })
        : await runLoad({ url: server.url, requests: getExisting(), connections: 10, seconds });
    return { p50: load.p50, rps: load.rps, cpu: ((cpuMs(server.pid) - before) * 1_000) / load.requests };
  };
  const seconds = mode === 'paced' ? 3 : 2;
  for (const server of builds) await slice(server, seconds); // warm-up
  const a: Slice[] = [];
  const b: Slice[] = [];
  for (let round = 0; round < rounds; round++)
    for (const which of inTurn(0, 1, 2, round))
      (which === 0 ? a : b).push(await slice(builds[which] as ServerProcess, seconds));
  const of = (list: Slice[], key: keyof Slice) => median(list.map((s) => s[key]));
  for (const [name, list, cli] of [
    ['A', a, cliA],
    ['B', b, cliB],
  ] as const)
    console.log(
      `${name} (${cli}): p50 ${of(list, 'p50').toFixed(3)} ms, ${Math.round(of(list, 'rps'))} req/s, CPU ${of(list, 'cpu').toFixed(1)} µs a request`,
    );
  const paired = (f: (x: Slice, y: Slice) => number) => median(a.map((x, i) => f(x, b[i] as Slice)));
  console.log(
    `paired slices (${a.length}): p50 A − B ${paired((x, y) => x.p50 - y.p50).toFixed(3)} ms, ` +
      `throughput A ÷ B ${paired((x, y) => x.rps / y.rps).toFixed(3)}, CPU a request A ÷ B ${paired((x, y) => x.cpu / y.cpu).toFixed(3)}`,
  );
} finally {
  for (const server of started.reverse()) await server.stop();
}
