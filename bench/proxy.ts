import type { Settings } from './config.js';
import { combine, type LoadResult, runLoad } from './load.js';
import { OUR_CLI, oursMissing, startOurs } from './ours.js';
import { type ServerProcess, spawnServer } from './proc.js';
import { notAvailable, type Row } from './table.js';
import { judge, TARGETS } from './targets.js';
import { getExisting } from './workloads.js';

/** The environment without USER_GROUP_MOCK_* settings, so only the flags configure the proxy. */
const env = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith('USER_GROUP_MOCK_')),
);

/** `user-group-mock proxy` on port 0 in front of `target`. */
function startProxy(target: string): Promise<ServerProcess> {
  return spawnServer({
    name: 'proxy',
    command: process.execPath,
    args: [
      OUR_CLI,
      'proxy',
      '--target',
      target,
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--log-level',
      'silent',
    ],
    readyLine: /^user-group-mock proxy listening on (http:\/\/[^,\s]+),/,
    env,
  });
}

/**
 * GET get-or-create (an existing group) on the mock directly and through the proxy to the same mock, in
 * alternating rounds with the same connections; the proxy's cost is the difference of the p50s.
 */
export async function proxyRows(settings: Settings): Promise<Row[]> {
  const missing = oursMissing();
  if (missing !== undefined) return [notAvailable('proxy', missing)];
  const mock = await startOurs();
  let proxy: ServerProcess | undefined;
  try {
    proxy = await startProxy(mock.url);
    const targets = [
      { label: 'mock directly, get-or-create (existing)', url: mock.url },
      { label: 'through the proxy to the mock, get-or-create (existing)', url: proxy.url },
    ];
    const load = (url: string, seconds: number) =>
      runLoad({ url, requests: getExisting(), connections: settings.connections, seconds });
    for (const { url } of targets) await load(url, settings.warmupSeconds);
    const rounds = new Map<string, LoadResult[]>();
    for (let round = 0; round < settings.rounds; round++)
      for (const { url } of round % 2 === 0 ? targets : [...targets].reverse())
        rounds.set(url, [...(rounds.get(url) ?? []), await load(url, settings.getSeconds)]);
    const [direct, proxied] = targets.map(({ url }) => combine(rounds.get(url) ?? []));
    if (direct === undefined || proxied === undefined) return [notAvailable('proxy', 'no result')];
    return [
      { name: targets[0]?.label as string, load: direct },
      { name: targets[1]?.label as string, load: proxied },
      judge(
        {
          name: 'proxy cost at p50 (through the proxy minus directly)',
          value: proxied.p50 - direct.p50,
          unit: 'ms',
        },
        TARGETS.proxyCost,
      ),
    ];
  } finally {
    await proxy?.stop();
    await mock.stop();
  }
}
