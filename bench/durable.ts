import type { Settings } from './config.js';
import { withTempDb, writeDatabase } from './dbfile.js';
import { runLoad } from './load.js';
import { oursMissing, startOurs } from './ours.js';
import type { ServerProcess } from './proc.js';
import { seedViaHttp } from './seed.js';
import { notAvailable, type Row } from './table.js';
import { judge, TARGETS } from './targets.js';
import { createNew, update } from './workloads.js';

const short = (n: number) =>
  n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1_000 ? `${n / 1_000}k` : String(n);

/**
 * Creates and updates against the durable file store with 1k, 10k, 100k groups already stored, and the start-up
 * (launch to first 200, snapshot and log read back) with that many groups.
 */
export async function durableRows(settings: Settings): Promise<Row[]> {
  const rows: Row[] = [];
  for (const size of settings.durableSizes) {
    const names = [
      `ours durable create @${short(size)}`,
      `ours durable update @${short(size)}`,
      `start-up ours, ${short(size)} groups stored`,
    ] as const;
    let measured: Row[];
    try {
      const missing = oursMissing();
      if (missing !== undefined) throw new Error(missing);
      const [create, change, startup] = await measureSize(settings, size);
      measured = [
        { name: names[0], ...create },
        { name: names[1], ...change },
        { name: names[2], ...startup },
      ];
    } catch (error) {
      measured = names.map((name) => notAvailable(name, (error as Error).message));
    }
    const { durableCreates10k, durableP99At100k: p99, startup100k } = TARGETS;
    const targets = size === 10_000 ? [durableCreates10k] : size === 100_000 ? [p99, p99, startup100k] : [];
    rows.push(...measured.map((row, i) => judge(row, targets[i])));
  }
  return rows;
}

type Measured = Omit<Row, 'name'>;

function measureSize(settings: Settings, size: number): Promise<[Measured, Measured, Measured]> {
  return withTempDb(async (db) => {
    const seeded = await seed(db, size, settings);
    const server = seeded.server ?? (await startOurs(db, 120_000));
    try {
      const url = server.url;
      await runLoad({ url, requests: update('seed', size), seconds: settings.warmupSeconds });
      const creates = Math.max(1_000, size / 5);
      const create = await runLoad({
        url,
        requests: createNew('new'),
        seconds: settings.durableSeconds,
        maxRequests: creates,
      });
      const change = await runLoad({ url, requests: update('seed', size), seconds: settings.durableSeconds });
      const note = `${seeded.note}; creates capped at ${short(creates)}`;
      const startup: Measured = seeded.server
        ? { note: 'n/a: seeded over HTTP, so the server started empty' }
        : { value: server.startupMs, unit: 'ms', note: seeded.note };
      return [{ load: create, note }, { load: change, note: seeded.note }, startup];
    } finally {
      await server.stop();
    }
  });
}

/** Seeds by writing the database file (fast), or else through HTTP within a time budget. */
async function seed(
  db: string,
  size: number,
  settings: Settings,
): Promise<{ server?: ServerProcess; note: string }> {
  try {
    const seconds = await writeDatabase(db, 'seed', size);
    return { note: `seeded by file in ${seconds.toFixed(1)} s` };
  } catch (fileError) {
    const server = await startOurs(db);
    try {
      const budget = settings.quick ? 10 : 60;
      const seconds = await seedViaHttp(server.url, 'seed', size, budget);
      return {
        server,
        note: `seeded over HTTP in ${seconds.toFixed(1)} s (file: ${(fileError as Error).message})`,
      };
    } catch (error) {
      await server.stop();
      throw error;
    }
  }
}
