import pg from 'pg';
import { postgresAvailable, startTestCluster, type TestCluster } from '../test/support/postgres.js';
import type { Settings } from './config.js';
import { type LoadResult, runLoad } from './load.js';
import { OUR_CLI, oursMissing } from './ours.js';
import { runPaced } from './paced.js';
import { type ServerProcess, spawnServer } from './proc.js';
import { notAvailable, type Row } from './table.js';
import { judge, TARGETS } from './targets.js';
import { createNew } from './workloads.js';

const short = (n: number) => (n >= 1_000 ? `${n / 1_000}k` : String(n));

/**
 * Durable creates against the PostgreSQL store (a throwaway cluster of this machine, fsync on) with 10k and 100k
 * groups already stored, through one replica and through two (each taking half the connections), beside the file
 * store's rows. A create is acknowledged after its transaction commits, and each request also writes its journal
 * entry and looks for a planned fault in the database.
 */
export async function postgresRows(settings: Settings): Promise<Row[]> {
  const sizes = [10_000, 100_000];
  const names = sizes.flatMap((size) =>
    [1, 2].map((replicas) => ({
      size,
      replicas,
      name: `ours PostgreSQL create @${short(size)}, ${replicas} replica${replicas > 1 ? 's' : ''}`,
    })),
  );
  const missing = oursMissing() ?? (postgresAvailable() ? undefined : 'initdb not on PATH');
  if (missing !== undefined) return names.map(({ name }) => notAvailable(name, missing));
  const cluster = await startTestCluster({ fsync: true });
  try {
    const rows: Row[] = [];
    for (const { size, replicas, name } of names) {
      try {
        rows.push({ name, ...(await measure(cluster, settings, size, replicas)) });
      } catch (error) {
        rows.push(notAvailable(name, (error as Error).message));
      }
    }
    try {
      rows.push(...(await unknownKeyRows(cluster, settings)));
    } catch (error) {
      rows.push(notAvailable(`${VALID_ROW} beside unknown keys`, (error as Error).message));
    }
    return rows;
  } finally {
    cluster.remove();
  }
}

async function measure(
  cluster: TestCluster,
  settings: Settings,
  size: number,
  replicas: number,
): Promise<Omit<Row, 'name'>> {
  const db = await cluster.createDatabase();
  const servers: ServerProcess[] = [];
  try {
    for (let i = 0; i < replicas; i++) servers.push(await startReplica(db));
    await seed(db, size);
    const creates = Math.max(1_000, size / 10);
    const loads = await Promise.all(
      servers.map((server, i) =>
        runLoad({
          url: server.url,
          requests: createNew(`new-${i}`),
          connections: Math.ceil(10 / replicas),
          seconds: settings.durableSeconds,
          maxRequests: Math.ceil(creates / replicas),
        }),
      ),
    );
    return { load: together(loads), note: `seeded by SQL; creates capped at ${short(creates)}; fsync on` };
  } finally {
    for (const server of servers) await server.stop();
  }
}

const VALID_RATE = 50;
const UNKNOWN_RATE = 1_000;
const VALID_ROW = `ours PostgreSQL get-or-create at ${VALID_RATE} req/s`;

/**
 * A client with a wrong key must not slow everyone else down: get-or-creates with a valid key at a fixed rate,
 * alone and then beside 1,000 req/s that each carry a key never issued (every one a different key, so that no
 * cache of one miss hides the cost). The second row's p99 is held against twice the first's.
 */
async function unknownKeyRows(cluster: TestCluster, settings: Settings): Promise<Row[]> {
  const db = await cluster.createDatabase();
  const server = await startReplica(db);
  try {
    const seconds = settings.durableSeconds;
    const valid = () => runPaced({ url: server.url, rate: VALID_RATE, connections: 5, seconds });
    await runPaced({ url: server.url, rate: VALID_RATE, connections: 5, seconds: 1 });
    const alone = await valid();
    const [beside, flood] = await Promise.all([
      valid(),
      runPaced({
        url: server.url,
        rate: UNKNOWN_RATE,
        connections: 8,
        seconds,
        authorization: (n) => `Token never-issued-${n}`,
      }),
    ]);
    const refused = `${flood.requests} unknown-key requests, ${flood.non2xx} refused`;
    return [
      { name: VALID_ROW, load: alone, note: 'valid key only, paced' },
      judge(
        {
          name: `${VALID_ROW}, beside ${UNKNOWN_RATE.toLocaleString('en-US')} req/s of unknown keys`,
          load: beside,
          value: beside.p99 / alone.p99,
          unit: '× p99',
          note: refused,
        },
        TARGETS.unknownKeys,
      ),
    ];
  } finally {
    await server.stop();
  }
}

function startReplica(db: string): Promise<ServerProcess> {
  return spawnServer({
    name: 'ours (PostgreSQL)',
    command: process.execPath,
    args: [OUR_CLI, 'serve', '--host', '127.0.0.1', '--port', '0', '--db', db, '--log-level', 'silent'],
    readyLine: /^user-group-mock listening on (http:\/\/\S+)$/,
    timeoutMs: 60_000,
  });
}

/** `size` groups of the default tenant, written by one statement. */
async function seed(db: string, size: number): Promise<void> {
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO groups (tenant, environment, provided_id, team_id, token, name)
       SELECT 'default', 'Customer', 'seed-' || n, nextval('team_ids'), md5('seed' || n) || md5('token' || n), 'Seed ' || n
       FROM generate_series(1, $1) AS n`,
      [size],
    );
  } finally {
    await client.end();
  }
}

/** Replicas loaded at once: their rates add up; the percentiles are the worst replica's. */
function together(loads: readonly LoadResult[]): LoadResult {
  return {
    rps: loads.reduce((n, l) => n + l.rps, 0),
    p50: Math.max(...loads.map((l) => l.p50)),
    p99: Math.max(...loads.map((l) => l.p99)),
    non2xx: loads.reduce((n, l) => n + l.non2xx, 0),
    errors: loads.reduce((n, l) => n + l.errors, 0),
    requests: loads.reduce((n, l) => n + l.requests, 0),
  };
}
