import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Settings } from './config.js';
import { combine, type LoadResult, median, pairedRound, runLoad } from './load.js';
import { OUR_CLI, oursEnv, oursMissing, startOurs } from './ours.js';
import { runPaced } from './paced.js';
import { startPassThrough } from './passThrough.js';
import { cpuMs, type ServerProcess, spawnServer } from './proc.js';
import { notAvailable, type Row } from './table.js';
import { getExisting } from './workloads.js';

const self = fileURLToPath(import.meta.url);
/** The build the proxies run: the folder of OUR_CLI's `dist`. */
const dist = join(OUR_CLI, '..', '..');

/**
 * A proxy of the build (createValidatingProxy in its own process), with its reference model judging each answer
 * (`on`) or not (`off`: `judge` answers nothing, the rest of the proxy unchanged), so that the two differ in the
 * model alone.
 */
function startModelProxy(model: 'on' | 'off', target: string): Promise<ServerProcess> {
  return spawnServer({
    name: `proxy, model ${model}`,
    command: process.execPath,
    args: ['--import', 'tsx', self, 'serve', model, target],
    readyLine: /^proxy listening on (http:\/\/\S+)$/,
    env: oursEnv,
  });
}

const PACED_RATE = 1_000;

/**
 * GET get-or-create (an existing group) through the proxy with its model on and off, and through a bare undici
 * pass-through, all to the same mock with the same connections, in an order that turns each round: at saturation
 * (throughput) and at a fixed 1,000 req/s (p50). Then the two ratios with targets, each from two paths alone in
 * ABBA slices of each round: the proxy's throughput over the pass-through's, and the model's share of the proxy's
 * throughput (1 − on ÷ off).
 */
export async function proxyModelRows(settings: Settings): Promise<Row[]> {
  const missing = oursMissing();
  if (missing !== undefined) return [notAvailable('proxy model', missing)];
  const mock = await startOurs();
  const started: ServerProcess[] = [];
  try {
    const start = async (server: Promise<ServerProcess>) => {
      const running = await server;
      started.push(running);
      return running;
    };
    const bare = await start(startPassThrough('undici-dispatch-kept', mock.url));
    const off = await start(startModelProxy('off', mock.url));
    const on = await start(startModelProxy('on', mock.url));
    const paths = [
      { label: 'mock directly', url: mock.url, pid: mock.pid },
      { label: 'bare pass-through (undici Pool.dispatch, reset: false)', url: bare.url, pid: bare.pid },
      { label: 'proxy, reference model off', url: off.url, pid: off.pid },
      { label: 'proxy, reference model on', url: on.url, pid: on.pid },
    ];
    /** CPU seconds each path's own process spent at saturation, and the requests it served meanwhile. */
    const cpu = new Map<string, { seconds: number; requests: number }>();
    const { connections } = settings;
    const saturated = (url: string, seconds: number) =>
      runLoad({ url, requests: getExisting(), connections, seconds });
    const paced = (url: string, seconds: number) => runPaced({ url, rate: PACED_RATE, connections, seconds });
    for (const { url } of paths) {
      await saturated(url, settings.warmupSeconds);
      await paced(url, settings.warmupSeconds);
    }
    const loads = new Map<string, LoadResult[]>();
    const p50s = new Map<string, number[]>();
    for (let round = 0; round < settings.rounds; round++) {
      for (let i = 0; i < paths.length; i++) {
        const { url, pid } = paths[(i + round) % paths.length] as (typeof paths)[number];
        const before = cpuMs(pid) / 1_000;
        const load = await saturated(url, settings.getSeconds / 2);
        const spent = cpu.get(url) ?? { seconds: 0, requests: 0 };
        cpu.set(url, {
          seconds: spent.seconds + cpuMs(pid) / 1_000 - before,
          requests: spent.requests + load.requests,
        });
        loads.set(url, [...(loads.get(url) ?? []), load]);
        p50s.set(url, [...(p50s.get(url) ?? []), (await paced(url, settings.getSeconds / 2)).p50]);
      }
    }
    // Each ratio the targets read from two paths alone, in ABBA slices of each round: run side by side within
    // seconds, so that the machine's other work weighs on both alike (the rounds above interleave four paths and a
    // paced run, and their slices of two paths are up to a minute apart).
    const paired = async (a: ServerProcess, b: ServerProcess): Promise<number[]> => {
      const ratios: number[] = [];
      for (let round = 0; round < settings.rounds; round++) {
        const [first, second] = await pairedRound(
          a.url,
          b.url,
          settings.slices,
          round,
          settings.getSeconds,
          saturated,
        );
        ratios.push((first?.rps ?? Number.NaN) / (second?.rps ?? Number.NaN));
      }
      return ratios;
    };
    const overBare = await paired(on, bare);
    const ratios = await paired(on, off);
    const direct = p50s.get(mock.url) ?? [];
    const rows: Row[] = paths.map(({ label, url }) => ({
      name: `${label}, get-or-create (existing)`,
      load: combine(loads.get(url) ?? []),
    }));
    for (const { label, url } of paths.slice(1)) {
      const costs = (p50s.get(url) ?? []).map((p50, round) => p50 - (direct[round] ?? Number.NaN));
      rows.push({
        name: `${label}: cost at p50 at 1,000 req/s (minus directly)`,
        value: median(costs),
        unit: 'ms',
        note: `median of rounds; by round: ${costs.map((cost) => cost.toFixed(3)).join(', ')}`,
      });
    }
    const perRequest = (url: string) => {
      const spent = cpu.get(url);
      return spent === undefined ? Number.NaN : (spent.seconds * 1e6) / spent.requests;
    };
    for (const { label, url } of paths.slice(1))
      rows.push({
        name: `${label}: its process's CPU per request at saturation`,
        value: perRequest(url),
        unit: 'µs',
        note: 'user + system time from /proc over all rounds, ÷ requests served',
      });
    rows.push({
      name: "the reference model's share of the proxy's CPU per request (1 − off ÷ on)",
      value: (1 - perRequest(off.url) / perRequest(on.url)) * 100,
      unit: '%',
      note: 'less sensitive than req/s to the other work on a shared machine; target at most 10 %',
    });
    rows.push({
      name: 'reference model, judge of a get-or-create of a known group, in process',
      value: await judgeMicroseconds(),
      unit: 'µs',
      note: 'per exchange, median of 5 runs of 100,000: the CPU the model adds to each exchange the proxy judges',
    });
    rows.push({
      name: "the proxy's throughput ÷ the bare pass-through's (model on, median of rounds)",
      value: median(overBare),
      unit: '×',
      note: `target at least 0.85; by round (${settings.slices} ABBA slices of the two alone): ${overBare.map((ratio) => ratio.toFixed(3)).join(', ')}`,
    });
    rows.push({
      name: "the reference model's share of the proxy's throughput (1 − on ÷ off, median of rounds)",
      value: (1 - median(ratios)) * 100,
      unit: '%',
      note: `target at most 10 %; on ÷ off by round (${settings.slices} ABBA slices of the two alone): ${ratios.map((ratio) => ratio.toFixed(3)).join(', ')}`,
    });
    return rows;
  } finally {
    await Promise.all(started.map((server) => server.stop()));
    await mock.stop();
  }
}

/** The model's CPU per exchange: `judge` of an existing group's get-or-create, as the proxy calls it. */
async function judgeMicroseconds(): Promise<number> {
  const { ReferenceModel } = (await import(
    pathToFileURL(join(dist, 'model/referenceModel.js')).href
  )) as typeof import('../src/model/referenceModel.js');
  const model = new ReferenceModel({ knowledge: 'learning' });
  const request = { name: 'Customer A', user_group_id: 'customer-a' };
  const group = {
    team_id: 1,
    token: 'a'.repeat(64),
    name: 'Customer A',
    provided_id: 'customer-a',
    properties: null,
  };
  const answer = { success: 1, new_user_group: false, user_group: group };
  model.judge('getOrCreateUserGroup', request, 200, answer, 'scope');
  const runs: number[] = [];
  for (let run = 0; run < 5; run++) {
    const started = performance.now();
    for (let i = 0; i < 100_000; i++) model.judge('getOrCreateUserGroup', request, 200, answer, 'scope');
    runs.push(((performance.now() - started) * 1_000) / 100_000);
  }
  return median(runs);
}

// The proxy's own process: `--import tsx bench/proxyModel.ts serve on|off TARGET`.
if (process.argv[1] === self) {
  const [command, model, target] = process.argv.slice(2);
  if (command === 'serve' && target !== undefined) {
    const { createValidatingProxy } = (await import(
      pathToFileURL(join(dist, 'index.js')).href
    )) as typeof import('../src/index.js');
    if (model === 'off') {
      const { ReferenceModel } = (await import(
        pathToFileURL(join(dist, 'model/referenceModel.js')).href
      )) as typeof import('../src/model/referenceModel.js');
      ReferenceModel.prototype.judge = () => [];
    }
    const proxy = await createValidatingProxy({ target, host: '127.0.0.1', port: 0, logLevel: 'silent' });
    console.log(`proxy listening on ${proxy.url}`);
    process.on('SIGTERM', () => void proxy.close().then(() => process.exit(0)));
  }
}
