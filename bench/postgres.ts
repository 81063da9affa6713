import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { postgresAvailable, startTestCluster, type TestCluster } from '../test/support/postgres.js';
import { PATH, type Settings } from './config.js';
import { floodProcess } from './flood.js';
import { combine, type LoadResult, runLoad } from './load.js';
import { OUR_CLI, oursMissing } from './ours.js';
import { runPaced } from './paced.js';
import { cpuMs, procTimes, type ServerProcess, spawnServer } from './proc.js';
import { notAvailable, type Row } from './table.js';
import { judge, TARGETS } from './targets.js';
import { createNew } from './workloads.js';

const short = (n: number) => (n >= 1_000 ? `${n / 1_000}k` : String(n));

/**
 * The PostgreSQL store at saturation, on one throwaway cluster of this machine (fsync on), 10 connections in all
 * (split between replicas): durable creates with 10k and 100k groups stored and get-or-creates of known groups, through
 * one replica and through two; a mixed workload (80 % reads, 10 % creates, 5 % updates, 5 % rotations) on a tenant
 * of 100 groups, alone and beside 999 other tenants of 100 groups each. Each row gives the CPU time per request of
 * the replicas and of PostgreSQL (every process of the cluster), from /proc: what a request costs on a machine of
 * any size, where the rate says what this machine, shared with the load generator, came to.
 */
export async function postgresRows(settings: Settings): Promise<Row[]> {
  const sizes = [10_000, 100_000];
  const plural = (replicas: number) => `${replicas} replica${replicas > 1 ? 's' : ''}`;
  type Measured = Omit<Row, 'name'>;
  const one = (name: string, run: (cluster: TestCluster) => Promise<Measured>) => ({
    names: [name],
    run: async (cluster: TestCluster) => [await run(cluster)],
  });
  const runs: { names: string[]; run: (cluster: TestCluster) => Promise<Measured[]> }[] = [
    ...sizes.flatMap((size) =>
      [1, 2].map((replicas) =>
        one(`ours PostgreSQL create @${short(size)}, ${plural(replicas)}`, (cluster) =>
          measureCreates(cluster, settings, size, replicas),
        ),
      ),
    ),
    ...[1, 2].map((replicas) =>
      one(`ours PostgreSQL read @100k, ${plural(replicas)}`, (cluster) =>
        measureReads(cluster, settings, replicas),
      ),
    ),
    {
      names: [
        'ours PostgreSQL mixed, 1 tenant, 1 replica',
        'ours PostgreSQL mixed, 1,000 tenants, 1 replica',
      ],
      run: (cluster) => measureMixed(cluster, settings),
    },
  ];
  const missing = oursMissing() ?? (postgresAvailable() ? undefined : 'initdb not on PATH');
  if (missing !== undefined)
    return runs.flatMap(({ names }) => names.map((name) => notAvailable(name, missing)));
  const cluster = await startTestCluster({ fsync: true });
  try {
    const rows: Row[] = [];
    for (const { names, run } of runs) {
      try {
        const measured = await run(cluster);
        rows.push(...names.map((name, i) => ({ name, ...measured[i] })));
      } catch (error) {
        rows.push(...names.map((name) => notAvailable(name, (error as Error).message)));
      }
    }
    return rows;
  } finally {
    cluster.remove();
  }
}

/** The rows of valid requests alone and beside a flood of unknown keys, on a cluster of their own. */
export async function postgresUnknownKeyRows(settings: Settings): Promise<Row[]> {
  const missing = oursMissing() ?? (postgresAvailable() ? undefined : 'initdb not on PATH');
  if (missing !== undefined) return [notAvailable(`${VALID_ROW} beside unknown keys`, missing)];
  const cluster = await startTestCluster({ fsync: true });
  try {
    return await unknownKeyRows(cluster, settings);
  } catch (error) {
    return [notAvailable(`${VALID_ROW} beside unknown keys`, (error as Error).message)];
  } finally {
    cluster.remove();
  }
}

/** Starts `replicas` replicas on a fresh database seeded by `seedWith`, runs `work`, stops them. */
async function withReplicas<T>(
  cluster: TestCluster,
  replicas: number,
  seedWith: (db: string) => Promise<void>,
  work: (servers: readonly ServerProcess[]) => Promise<T>,
): Promise<T> {
  const db = await cluster.createDatabase();
  const servers: ServerProcess[] = [];
  try {
    for (let i = 0; i < replicas; i++) servers.push(await startReplica(db));
    await seedWith(db);
    await settle(db);
    return await work(servers);
  } finally {
    for (const server of servers) await server.stop();
  }
}

/**
 * Loads every replica at once with its share of the 10 connections (`requests(i)` for replica i), and the CPU time
 * the replicas and the cluster spent meanwhile, per request answered.
 */
async function loadWithCpu(
  cluster: TestCluster,
  servers: readonly ServerProcess[],
  options: { requests: (i: number) => Requests; seconds: number; maxRequests?: number; warmup: number },
): Promise<{ load: LoadResult; cpu: string; cpuUs: number }> {
  // Each replica's ways through the code compiled, and its pool's connections opened, before anything is counted.
  await Promise.all(
    servers.map((server, i) =>
      runLoad({
        url: server.url,
        requests: options.requests(i + servers.length),
        connections: Math.ceil(10 / servers.length),
        seconds: options.warmup,
      }),
    ),
  );
  const pids = servers.map((server) => server.pid);
  const [replicasBefore, databaseBefore] = [cpuMs(...pids), clusterCpu(cluster)];
  const loads = await Promise.all(
    servers.map((server, i) =>
      runLoad({
        url: server.url,
        requests: options.requests(i),
        connections: Math.ceil(10 / servers.length),
        seconds: options.seconds,
        ...(options.maxRequests === undefined
          ? {}
          : { maxRequests: Math.ceil(options.maxRequests / servers.length) }),
      }),
    ),
  );
  const load = together(loads);
  const perRequest = (ms: number) => (ms * 1_000) / Math.max(1, load.requests);
  const replica = perRequest(cpuMs(...pids) - replicasBefore);
  const database = perRequest(clusterCpu(cluster) - databaseBefore);
  return {
    load,
    cpuUs: replica + database,
    cpu: `CPU per request: replica ${Math.round(replica)} µs, PostgreSQL ${Math.round(database)} µs`,
  };
}

async function measureCreates(
  cluster: TestCluster,
  settings: Settings,
  size: number,
  replicas: number,
): Promise<Omit<Row, 'name'>> {
  return withReplicas(
    cluster,
    replicas,
    (db) => seed(db, size),
    async (servers) => {
      const creates = Math.max(1_000, size / 10);
      const { load, cpu, cpuUs } = await loadWithCpu(cluster, servers, {
        requests: (i) => createNew(`new-${i}`),
        seconds: settings.durableSeconds,
        maxRequests: creates,
        warmup: settings.warmupSeconds,
      });
      return {
        load,
        value: Math.round(cpuUs),
        unit: 'µs CPU',
        note: `seeded by SQL; creates capped at ${short(creates)}; fsync on; ${cpu}`,
      };
    },
  );
}

/** Get-or-creates of groups already stored (each answer unchanged, its journal entry written). */
async function measureReads(
  cluster: TestCluster,
  settings: Settings,
  replicas: number,
): Promise<Omit<Row, 'name'>> {
  const size = 100_000;
  return withReplicas(
    cluster,
    replicas,
    (db) => seed(db, size),
    async (servers) => {
      const { load, cpu, cpuUs } = await loadWithCpu(cluster, servers, {
        requests: () => readSeeded(size),
        seconds: settings.durableSeconds,
        warmup: settings.warmupSeconds,
      });
      return { load, value: Math.round(cpuUs), unit: 'µs CPU', note: `fsync on; ${cpu}` };
    },
  );
}

const MIXED_GROUPS = 100;

/** Rounds of the mixed workload, each side a slice of `durableSeconds` / 2 in ABBA order. */
const MIXED_ROUNDS = 4;

/**
 * 80 % get-or-creates of known groups, 10 % creates, 5 % updates, 5 % rotations, on the default tenant's 100 groups,
 * through a replica of a database holding that tenant alone and one of a database where 999 other tenants hold 100
 * groups and 200 journal entries each (both in the cluster). The two are loaded in turn, in ABBA slices, and each
 * side's latencies and CPU time pooled: what the machine does meanwhile falls on both alike.
 */
async function measureMixed(cluster: TestCluster, settings: Settings): Promise<Omit<Row, 'name'>[]> {
  const dbs = [await cluster.createDatabase(), await cluster.createDatabase()];
  const servers: ServerProcess[] = [];
  try {
    for (const db of dbs) servers.push(await startReplica(db));
    for (const db of dbs) await seed(db, MIXED_GROUPS);
    await seedTenants(dbs[1] as string, 999, MIXED_GROUPS);
    for (const db of dbs) await settle(db);
    // One chain of rotations per side for the warm-up and the slices: a token rotated away is not sent again.
    const workloads = servers.map(() => mixed(MIXED_GROUPS));
    const sides = servers.map(() => ({ loads: [] as LoadResult[], replicaMs: 0, databaseMs: 0 }));
    const run = (i: number, seconds: number) =>
      runLoad({ url: (servers[i] as ServerProcess).url, requests: workloads[i] as Requests, seconds });
    for (const i of [0, 1]) await run(i, settings.warmupSeconds);
    for (let round = 0; round < MIXED_ROUNDS; round++)
      for (const i of [0, 1, 1, 0]) {
        const side = sides[i] as (typeof sides)[number];
        const pid = (servers[i] as ServerProcess).pid;
        const [replica, database] = [cpuMs(pid), clusterCpu(cluster)];
        side.loads.push(await run(i, settings.durableSeconds / 2));
        side.replicaMs += cpuMs(pid) - replica;
        side.databaseMs += clusterCpu(cluster) - database;
      }
    return sides.map((side, i) => {
      const load = combine(side.loads);
      const perRequest = (ms: number) => (ms * 1_000) / Math.max(1, load.requests);
      const [replica, database] = [perRequest(side.replicaMs), perRequest(side.databaseMs)];
      const others = i === 1 ? `; 999 other tenants of ${MIXED_GROUPS} groups` : '';
      return {
        load,
        value: Math.round(replica + database),
        unit: 'µs CPU',
        note:
          `80/10/5/5 % reads/creates/updates/rotations of ${MIXED_GROUPS} groups${others}; ` +
          `${MIXED_ROUNDS * 2} slices in turn with the other row; ` +
          `CPU per request: replica ${Math.round(replica)} µs, PostgreSQL ${Math.round(database)} µs`,
      };
    });
  } finally {
    for (const server of servers) await server.stop();
  }
}

type Requests = ReturnType<typeof createNew>;

/** The token `seed` gives seeded group n. */
const seededToken = (n: number) =>
  createHash('md5').update(`seed${n}`).digest('hex') + createHash('md5').update(`token${n}`).digest('hex');

/** A get-or-create of a random seeded group, named as seeded (so the answer carries no notice). */
function readSeeded(size: number): Requests {
  return [
    {
      method: 'GET',
      path: PATH,
      setupRequest: (request) => {
        const n = 1 + Math.floor(Math.random() * size);
        return { ...request, body: JSON.stringify({ name: `Seed ${n}`, user_group_id: `seed-${n}` }) };
      },
    },
  ];
}

/**
 * The mixed workload over seeded groups 1 … `size`: reads of the first half, updates of the second (so that reads
 * carry no notice of a renamed group), rotations as chains from the seeded tokens, creates of new ids.
 */
function mixed(size: number): Requests {
  const tokens = Array.from({ length: size }, (_, i) => seededToken(i + 1));
  const half = Math.floor(size / 2);
  let next = 0;
  return [
    {
      method: 'GET',
      path: PATH,
      setupRequest: (request, context) => {
        const roll = Math.random();
        const at = (from: number, count: number) => from + Math.floor(Math.random() * count);
        const kind = roll < 0.8 ? 'read' : roll < 0.9 ? 'create' : roll < 0.95 ? 'update' : 'rotate';
        (context as { kind?: string }).kind = kind;
        if (kind === 'read') {
          const n = at(1, half);
          return {
            ...request,
            method: 'GET',
            body: JSON.stringify({ name: `Seed ${n}`, user_group_id: `seed-${n}` }),
          };
        }
        if (kind === 'create') {
          const id = `mixed-${process.pid}-${next++}`;
          return {
            ...request,
            method: 'GET',
            body: JSON.stringify({ name: `Group ${id}`, user_group_id: id }),
          };
        }
        if (kind === 'update') {
          const n = at(half + 1, size - half);
          return {
            ...request,
            method: 'PUT',
            body: JSON.stringify({ user_group_id: `seed-${n}`, name: `Renamed ${next++}` }),
          };
        }
        return {
          ...request,
          method: 'POST',
          body: JSON.stringify({ current_token: tokens.shift() ?? '0'.repeat(64) }),
        };
      },
      onResponse: (status, body, context) => {
        if ((context as { kind?: string }).kind !== 'rotate' || status !== 200) return;
        const token = (JSON.parse(body) as { user_group?: { token?: string } }).user_group?.token;
        if (token) tokens.push(token);
      },
    },
  ];
}

/**
 * CPU time of the cluster so far, in ms: the postmaster's own, that of the children it has reaped (backends of
 * closed connections), and that of its children alive now (backends, the WAL writer, the checkpointer, …).
 */
function clusterCpu(cluster: TestCluster): number {
  const postmaster = Number(readFileSync(join(cluster.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const own = procTimes(postmaster);
  let total = (own?.own ?? 0) + (own?.reaped ?? 0);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const times = procTimes(Number(entry));
    if (times?.parent === postmaster) total += times.own;
  }
  return total;
}

const VALID_RATE = 50;
const UNKNOWN_RATE = 1_000;
/** Enough that the flood keeps its rate while each refusal takes up to 32 ms (a connection waits for its answer). */
const UNKNOWN_CONNECTIONS = 32;
const UNKNOWN_ROUNDS = 12;
/**
 * Seconds of valid requests on each side per second of `durableSeconds`: 60 s, 3,000 latencies a side. Over runs of
 * one build, the ratio of p99s of 900 latencies a side (18 s) ranged from 1.1 to 2.8; of 3,000, from 1.3 to 2.1.
 */
const UNKNOWN_SECONDS = 10;
const SETTLE_MS = 600;
const VALID_ROW = `ours PostgreSQL get-or-create at ${VALID_RATE} req/s`;

/**
 * A client with a wrong key must not slow everyone else down: get-or-creates with a valid key at a fixed rate,
 * alone and then beside 1,000 req/s that each carry a key never issued (every one a different key, so that no
 * cache of one miss hides the cost), sent by a process of their own. The second row's p99 is held against twice the
 * first's. Alone and beside alternate in short rounds, and each side's latencies are pooled: a stall of the machine
 * (a slow flush of the disk, another busy process) then falls on both sides alike instead of deciding the ratio.
 */
async function unknownKeyRows(cluster: TestCluster, settings: Settings): Promise<Row[]> {
  const db = await cluster.createDatabase();
  const server = await startReplica(db);
  const flood = floodProcess();
  try {
    const slice = (settings.durableSeconds * UNKNOWN_SECONDS) / UNKNOWN_ROUNDS;
    const valid = (seconds: number) =>
      runPaced({ url: server.url, rate: VALID_RATE, connections: 5, seconds });
    const unknown = (seconds: number, keyPrefix: string) =>
      flood.run({
        url: server.url,
        rate: UNKNOWN_RATE,
        connections: UNKNOWN_CONNECTIONS,
        seconds,
        keyPrefix,
      });
    // Both ways through the server compiled before anything is timed.
    await Promise.all([
      runPaced({ url: server.url, rate: 5 * VALID_RATE, connections: 5, seconds: 1 }),
      unknown(1, 'warm-up'),
    ]);
    await flood.pooled();
    const alone: LoadResult[] = [];
    const beside: LoadResult[] = [];
    for (let round = 0; round < UNKNOWN_ROUNDS; round++) {
      alone.push(await valid(slice));
      const [next] = await Promise.all([valid(slice), unknown(slice, `never-issued-${round}`)]);
      beside.push(next);
      // What the flood leaves behind (a trim, PostgreSQL's background writes) is done before the valid requests
      // are timed alone again.
      await sleep(SETTLE_MS);
    }
    const [aloneLoad, besideLoad] = [combine(alone), combine(beside)];
    const floods = await flood.pooled();
    const refused =
      `${floods.requests} unknown-key requests at ${Math.round(floods.rps)} req/s, ` +
      `their p50 ${floods.p50.toFixed(1)} ms; ${UNKNOWN_ROUNDS} rounds of ${slice} s each side`;
    return [
      { name: VALID_ROW, load: aloneLoad, note: `valid key only, paced; ${UNKNOWN_ROUNDS} rounds pooled` },
      judge(
        {
          name: `${VALID_ROW}, beside ${UNKNOWN_RATE.toLocaleString('en-US')} req/s of unknown keys`,
          load: besideLoad,
          value: besideLoad.p99 / aloneLoad.p99,
          unit: '× p99',
          note: refused,
        },
        TARGETS.unknownKeys,
      ),
    ];
  } finally {
    flood.stop();
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

/**
 * `others` tenants (`tenant-1` …, keys `customer-1`/`testing-1` …) of `size` groups each, and 200 journal entries
 * each, written by three statements.
 */
async function seedTenants(db: string, others: number, size: number): Promise<void> {
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO tenants (id, customer_key, testing_key)
       SELECT 'tenant-' || t, 'customer-' || t, 'testing-' || t FROM generate_series(1, $1) AS t`,
      [others],
    );
    await client.query(
      `INSERT INTO groups (tenant, environment, provided_id, team_id, token, name)
       SELECT 'tenant-' || t, 'Customer', 'seed-' || n, nextval('team_ids'), md5('t' || t || 'seed' || n) || md5('token' || n), 'Seed ' || n
       FROM generate_series(1, $1) AS t, generate_series(1, $2) AS n`,
      [others, size],
    );
    await client.query(
      `INSERT INTO journal (tenant, operation_id, invalid, record)
       SELECT 'tenant-' || t, 'getOrCreateUserGroup', false, '{"method":"GET","path":"/api/user","status":200}'
       FROM generate_series(1, $1) AS t, generate_series(1, 200) AS n`,
      [others],
    );
  } finally {
    await client.end();
  }
}

/**
 * What seeding leaves PostgreSQL to do (vacuuming and analysing the new rows, writing them out) done before the
 * load, so that its CPU time is not counted against the requests.
 */
async function settle(db: string): Promise<void> {
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    await client.query('VACUUM ANALYZE');
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
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
