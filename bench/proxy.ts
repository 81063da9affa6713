import type { Settings } from './config.js';
import { combine, type LoadResult, median, pairedRound, runLoad } from './load.js';
import { OUR_CLI, oursEnv, oursMissing, startOurs } from './ours.js';
import { runPaced } from './paced.js';
import { type ServerProcess, spawnServer } from './proc.js';
import { int, notAvailable, type Row } from './table.js';
import { judge, TARGETS } from './targets.js';
import { getExisting } from './workloads.js';

/** `user-group-mock proxy` (`cli`'s build) on port 0 in front of `target`. */
export function startProxy(target: string, cli = OUR_CLI): Promise<ServerProcess> {
  return spawnServer({
    name: 'proxy',
    command: process.execPath,
    args: [cli, 'proxy', '--target', target, '--host', '127.0.0.1', '--port', '0', '--log-level', 'silent'],
    readyLine: /^user-group-mock proxy listening on (http:\/\/[^,\s]+),/,
    env: oursEnv,
  });
}

/** The offered rate of the latency comparison: well within what both paths sustain on a small machine. */
const PACED_RATE = 1_000;

/**
 * GET get-or-create (an existing group) on the mock directly and through the proxy to the same mock, in turn
 * (ABBA slices within each round) with the same 10 connections, twice: at saturation (throughput; p50 there is the connections
 * divided by the throughput, so it shows the CPU left on the machine that runs client, proxy and mock), and at a
 * fixed `PACED_RATE` (the latency a request sees). The proxy's cost is the difference of the p50s at that rate, as the
 * median of the rounds' differences.
 */
export async function proxyRows(settings: Settings): Promise<Row[]> {
  const missing = oursMissing();
  if (missing !== undefined) return [notAvailable('proxy', missing)];
  const mock = await startOurs();
  let proxy: ServerProcess | undefined;
  try {
    proxy = await startProxy(mock.url);
    const directPath = { label: 'mock directly', url: mock.url };
    const proxiedPath = { label: 'through the proxy to the mock', url: proxy.url };
    const paths = [directPath, proxiedPath];
    const { connections } = settings;
    const saturated = (url: string, seconds: number) =>
      runLoad({ url, requests: getExisting(), connections, seconds });
    const paced = (url: string, seconds: number) => runPaced({ url, rate: PACED_RATE, connections, seconds });
    for (const { url } of paths) {
      await saturated(url, settings.warmupSeconds);
      await paced(url, settings.warmupSeconds);
    }
    // Each round runs both paths in turn, in short slices ordered ABBA (as the throughput rounds do), at saturation
    // and then at the fixed rate; the cost judged is the median of the rounds' differences of p50.
    const rounds = new Map<string, LoadResult[]>();
    const keep = (key: string, result: LoadResult) => rounds.set(key, [...(rounds.get(key) ?? []), result]);
    const costs: number[] = [];
    for (let round = 0; round < settings.rounds; round++)
      for (const [kind, measure] of [
        ['saturated', saturated],
        ['paced', paced],
      ] as const) {
        const [direct, proxied] = await pairedRound(
          directPath.url,
          proxiedPath.url,
          settings.slices,
          round,
          settings.getSeconds,
          measure,
        );
        if (direct === undefined || proxied === undefined) continue;
        keep(`${kind} ${directPath.url}`, direct);
        keep(`${kind} ${proxiedPath.url}`, proxied);
        if (kind === 'paced') costs.push(proxied.p50 - direct.p50);
      }
    const pooled = (kind: string, url: string) => combine(rounds.get(`${kind} ${url}`) ?? []);
    const [direct, proxied] = paths.map(({ url }) => pooled('saturated', url));
    const [directPaced, proxiedPaced] = paths.map(({ url }) => pooled('paced', url));
    if (!direct || !proxied || !directPaced || !proxiedPaced || costs.length === 0)
      return [notAvailable('proxy', 'no result')];
    const rate = `${int(PACED_RATE)} req/s`;
    const [directLabel, proxiedLabel] = paths.map(({ label }) => label);
    return [
      { name: `${directLabel}, get-or-create (existing)`, load: direct },
      { name: `${proxiedLabel}, get-or-create (existing)`, load: proxied },
      {
        name: 'proxy p50 difference at saturation',
        value: proxied.p50 - direct.p50,
        unit: 'ms',
        note: 'connections ÷ throughput: the CPU left with client, proxy and mock on one machine',
      },
      { name: `${directLabel} at ${rate}`, load: directPaced },
      { name: `${proxiedLabel} at ${rate}`, load: proxiedPaced },
      judge(
        {
          name: `proxy cost at p50 at ${rate} (through the proxy minus directly)`,
          value: median(costs),
          unit: 'ms',
          note: `median of rounds; by round: ${costs.map((cost) => cost.toFixed(2)).join(', ')}`,
        },
        TARGETS.proxyCost,
      ),
    ];
  } finally {
    await proxy?.stop();
    await mock.stop();
  }
}
